import type { SuiteTotals, TestReportFigures } from '../../domain/imports/reports';
import { bounded, refuse } from './import-refusal';
import { readXml } from './xml';
import { DEFAULT_ZIP_LIMITS, readZipEntries, type ZipLimits } from './zip-entries';

export { DEFAULT_ZIP_LIMITS, type ZipLimits } from './zip-entries';

/**
 * JUnit-style test reports (spec §2.6 test-report import, §4.3): one XML document, or a zip of
 * them. Only figures are kept (the document never is, S1.2.6-11).
 *
 * Counting rules, all from <testcase> elements (the tests/failures/... attributes of suites are
 * summaries producers get wrong and are not read):
 * - a test case's outcome comes from its own children: <error> > <failure> > <skipped>, else
 *   passed; surefire's flakyFailure/flakyError/rerunFailure/rerunError are retries, not outcomes
 *   (a flaky test that passed on retry is a pass). A case with no such child but
 *   status="disabled" / "notrun" / "skipped" / "ignored" was not run and counts as skipped.
 * - retries written as separate cases (pytest-rerunfailures writes every attempt): when a case
 *   passes after failed or errored attempts of the same classname and name in the same suite,
 *   those attempts were retries and the case counts once, as passed (a flaky test). Repeats
 *   without a later pass are all kept: same-named cases are also how TestNG writes data-provider
 *   invocations and how mocha reports a test that failed twice, and producers count them so.
 *   Unnamed cases are never merged.
 * - suites are the <testsuite> elements that directly hold test cases, flattened however deeply
 *   they nest; pure containers are not suites. Cases written directly under <testsuites> form a
 *   suite named after that element.
 * - a report without any test case is refused (S1.4.3-37), never recorded as zero.
 */

export type { SuiteTotals, TestReportFigures } from '../../domain/imports/reports';

type Outcome = 'passed' | 'failure' | 'error' | 'skipped';

/**
 * The longest suite or test-case name accepted, without control characters: a suite's name is kept
 * (with its totals) and shown, a test case's identifies its retries; a longer one is not a name.
 */
export const JUNIT_NAME_MAX = 1000;
const NOT_RUN = new Set(['disabled', 'notrun', 'skipped', 'ignored']);

interface SuiteFrame {
  name: string;
  depth: number;
  /** Outcomes in document order; a retry superseded by a later pass becomes null. */
  outcomes: (Outcome | null)[];
  /** classname+name -> indices of failed or errored attempts a later pass would supersede. */
  attempts: Map<string, number[]>;
}

interface CaseFrame {
  depth: number;
  key: string | null;
  status: string;
  error: boolean;
  failure: boolean;
  skipped: boolean;
}

function record(suite: SuiteFrame, key: string | null, outcome: Outcome): void {
  suite.outcomes.push(outcome);
  if (key === null) return;
  if (outcome === 'failure' || outcome === 'error') {
    const earlier = suite.attempts.get(key);
    if (earlier) earlier.push(suite.outcomes.length - 1);
    else suite.attempts.set(key, [suite.outcomes.length - 1]);
  } else if (outcome === 'passed') {
    for (const i of suite.attempts.get(key) ?? []) suite.outcomes[i] = null;
    suite.attempts.delete(key);
  }
}

/** The suites of one XML document; throws ImportRefusal when it is not a JUnit report. */
export function readJUnitDocument(body: Buffer, what = 'test report'): SuiteTotals[] {
  const suites: SuiteTotals[] = [];
  const open: SuiteFrame[] = [];
  let current: CaseFrame | null = null;

  const finish = (frame: SuiteFrame): void => {
    const totals: SuiteTotals = { name: frame.name, tests: 0, failures: 0, errors: 0, skipped: 0 };
    for (const outcome of frame.outcomes) {
      if (outcome === null) continue;
      totals.tests++;
      if (outcome === 'failure') totals.failures++;
      else if (outcome === 'error') totals.errors++;
      else if (outcome === 'skipped') totals.skipped++;
    }
    if (totals.tests > 0) suites.push(totals);
  };

  readXml(body, what, {
    open(name, attributes, depth, line) {
      if (depth === 0 && name !== 'testsuites' && name !== 'testsuite') {
        refuse(`The ${what} is not a JUnit report: its root element is <${name}>, not <testsuites> or <testsuite>.`);
      }
      if (current) {
        if (depth === current.depth + 1) {
          if (name === 'error') current.error = true;
          else if (name === 'failure') current.failure = true;
          else if (name === 'skipped') current.skipped = true;
        }
        return;
      }
      if (name === 'testsuite' || (depth === 0 && name === 'testsuites')) {
        open.push({ name: bounded(what, `the name of <${name}> on line ${line}`, attributes.name ?? '', JUNIT_NAME_MAX), depth, outcomes: [], attempts: new Map() });
      } else if (name === 'testcase' && open.length > 0) {
        const caseName = bounded(what, `the name of <testcase> on line ${line}`, attributes.name ?? '', JUNIT_NAME_MAX);
        const key = caseName === '' ? null : `${attributes.classname ?? ''}\u0000${caseName}`;
        current = { depth, key, status: (attributes.status ?? '').toLowerCase(), error: false, failure: false, skipped: false };
      }
    },
    close(name, depth) {
      if (current) {
        if (depth !== current.depth) return;
        const c = current;
        current = null;
        const outcome: Outcome = c.error ? 'error' : c.failure ? 'failure' : c.skipped || NOT_RUN.has(c.status) ? 'skipped' : 'passed';
        record(open[open.length - 1], c.key, outcome);
        return;
      }
      const top = open[open.length - 1];
      if (top && top.depth === depth && (name === 'testsuite' || name === 'testsuites')) finish(open.pop()!);
    },
  });
  return suites;
}

function figures(documents: number, suiteTotals: SuiteTotals[]): TestReportFigures {
  const sum = (k: 'tests' | 'failures' | 'errors' | 'skipped'): number => suiteTotals.reduce((n, s) => n + s[k], 0);
  const tests = sum('tests');
  if (tests === 0) refuse('The test report holds no test case; an empty report is refused rather than recorded as zero.');
  return { documents, suites: suiteTotals.length, tests, failures: sum('failures'), errors: sum('errors'), skipped: sum('skipped'), suiteTotals };
}

/**
 * Zip entries read as reports: every *.xml file outside macOS resource-fork folders ("__MACOSX/",
 * "._name"). Other files (surefire's *.txt summaries, logs) are ignored once checked for being
 * nested archives; an .xml entry that is not a JUnit report refuses the upload, naming the entry,
 * since a half-read zip would under-report.
 */
function isReportEntry(name: string): boolean {
  const base = name.slice(name.lastIndexOf('/') + 1);
  return /\.xml$/i.test(name) && !name.startsWith('__MACOSX/') && !base.startsWith('._');
}

export async function parseTestReport(
  body: Buffer,
  contentType: 'application/xml' | 'application/zip',
  limits: ZipLimits = DEFAULT_ZIP_LIMITS,
): Promise<TestReportFigures> {
  if (contentType === 'application/xml') return figures(1, readJUnitDocument(body));
  if (contentType !== 'application/zip') refuse(`The content type ${String(contentType)} is not application/xml or application/zip.`);
  const entries = (await readZipEntries(body, limits)).filter((e) => isReportEntry(e.name));
  if (entries.length === 0) refuse('The zip holds no XML test report.');
  const suites: SuiteTotals[] = [];
  for (const entry of entries) suites.push(...readJUnitDocument(entry.data, `zip entry "${entry.name}"`));
  return figures(entries.length, suites);
}
