import { expect } from 'chai';
import { parseTestReport, readJUnitDocument, type TestReportFigures } from '../../infrastructure/parsers/junit';
import { corpusAvailable, requireCorpus } from '../support/corpus';
import { expectRefusalAsync, readCorpus, readManifest, verdictOfNote } from './support';
import { DECISIONS, independent, RETRIES } from './junit-decisions';

const xml = (text: string): Promise<TestReportFigures> => parseTestReport(Buffer.from(text), 'application/xml');

describe('JUnit test-report parser', () => {
  describe('corpus: every manifest file gets its expected verdict and independently counted figures', function () {
    before(function () {
      requireCorpus(this.test!.parent!);
    });
    const rows = corpusAvailable() ? readManifest('MANIFEST-reports.tsv').filter((r) => r.file.startsWith('junit/')) : [];
    for (const row of rows) {
      const decided = DECISIONS[row.file];
      const verdict = decided?.verdict ?? verdictOfNote(row.note);
      it(`[S1.4.3-09] ${row.file} is ${verdict === 'accept' ? 'accepted' : 'refused (400)'}${decided ? ` [${decided.why}]` : ''}`, async () => {
        expect(verdict, `no verdict for ${row.file}: add it to DECISIONS`).to.not.equal(undefined);
        const body = readCorpus(row.file);
        if (verdict === 'refuse') {
          await expectRefusalAsync(() => parseTestReport(body, 'application/xml'), decided?.pattern);
          return;
        }
        const figures = await parseTestReport(body, 'application/xml');
        const expected = RETRIES[row.file] ?? independent(body.toString('utf8'));
        expect(figures).to.deep.include({ documents: 1, ...expected });
        expect(figures.suites).to.equal(figures.suiteTotals.length).and.be.above(0);
        const sum = (k: 'tests' | 'failures' | 'errors' | 'skipped'): number => figures.suiteTotals.reduce((n, s) => n + s[k], 0);
        expect([sum('tests'), sum('failures'), sum('errors'), sum('skipped')]).to.deep.equal([figures.tests, figures.failures, figures.errors, figures.skipped]);
      });
    }
    // Without the corpus there are no rows: one test keeps the suite (and its corpus check) visible.
    if (rows.length === 0) it('has manifest rows to check', () => expect(rows).to.not.be.empty);
  });

  describe('corpus: particular files', function () {
    before(function () {
      requireCorpus(this.test!.parent!);
    });
    const file = (f: string): Promise<TestReportFigures> => parseTestReport(readCorpus(`junit/${f}`), 'application/xml');

    it('[S1.2.6-10] surefire flakyFailure (passed on retry) is a pass, not a failure', async () => {
      expect(await file('surefire__flakyFailure.xml')).to.deep.include({ tests: 1, failures: 0, errors: 0 });
      expect(await file('surefire-3.0.2__flaky-rerun.xml')).to.deep.include({ tests: 1, failures: 0 });
    });

    it('[S1.2.6-10] pytest-rerunfailures: failed and errored attempts before a pass count once, as a pass', async () => {
      expect(await file('pytest-rerunfailures__flaky.xml')).to.deep.include({ tests: 3, failures: 0, errors: 0 });
    });

    it('[S1.2.6-10] same-named cases without a later pass all count (TestNG, mocha), as their producers count them', async () => {
      expect(await file('testng-junitreportreporter.xml')).to.deep.include({ tests: 2, failures: 1, skipped: 1 });
      expect(await file('mocha-junit-reporter__example-failures.xml')).to.deep.include({ tests: 30, failures: 9 });
    });

    it('[S1.2.6-10] nested suites are flattened; container suites are not suites', async () => {
      const f = await file('nested-testsuites-3-levels.xml');
      expect(f.suites).to.equal(f.suiteTotals.length);
      expect(f.suiteTotals.every((s) => s.tests > 0)).to.equal(true);
    });

    it('[S1.2.6-10] disabled cases count as skipped', async () => {
      expect(await file('edge__disabled-status.xml')).to.deep.include({ tests: 31, failures: 19, errors: 1, skipped: 5 });
    });

    it('astral-plane names and a BOM without XML declaration are read', async () => {
      expect((await file('edge__astral-unicode-names.xml')).tests).to.equal(7);
      expect((await file('junitxml-testlogger__dotnet.xml')).tests).to.equal(52);
    });
  });

  describe('rules', () => {
    it('[S1.2.6-10] counts outcomes from testcase children, with suite totals', async () => {
      const f = await xml(`<testsuites><testsuite name="A">
        <testcase classname="c" name="ok"/><testcase classname="c" name="f"><failure/></testcase>
        <testcase classname="c" name="e"><error/></testcase><testcase classname="c" name="s"><skipped/></testcase>
      </testsuite><testsuite name="B"><testcase name="x"><failure/><system-out>out</system-out></testcase></testsuite></testsuites>`);
      expect(f).to.deep.equal({
        documents: 1,
        suites: 2,
        tests: 5,
        failures: 2,
        errors: 1,
        skipped: 1,
        suiteTotals: [
          { name: 'A', tests: 4, failures: 1, errors: 1, skipped: 1 },
          { name: 'B', tests: 1, failures: 1, errors: 0, skipped: 0 },
        ],
      });
    });

    it('the suites\' own tests/failures attributes are not trusted', async () => {
      expect(await xml('<testsuite name="S" tests="99" failures="50"><testcase name="a"/></testsuite>')).to.deep.include({ tests: 1, failures: 0 });
    });

    it('a bare <testsuite> root, nested suites and cases directly under <testsuites> are read', async () => {
      const nested = await xml('<testsuite name="outer"><testsuite name="inner"><testcase name="a"/></testsuite><testcase name="b"/></testsuite>');
      expect(nested.suiteTotals.map((s) => [s.name, s.tests])).to.deep.equal([['inner', 1], ['outer', 1]]);
      const loose = await xml('<testsuites name="root"><testcase name="a"><error/></testcase></testsuites>');
      expect(loose).to.deep.include({ suites: 1, tests: 1, errors: 1 });
    });

    it('rerunFailure / flakyError children are retries, not outcomes; a primary failure still counts once', async () => {
      const f = await xml('<testsuite><testcase name="a"><failure/><rerunFailure/><rerunFailure/></testcase><testcase name="b"><flakyError/></testcase></testsuite>');
      expect(f).to.deep.include({ tests: 2, failures: 1, errors: 0 });
    });

    it('[S1.4.3-37] a report without any test case is refused', async () => {
      await expectRefusalAsync(() => xml('<testsuites/>'), /no test case/);
      await expectRefusalAsync(() => xml('<testsuite name="s" tests="3"></testsuite>'), /no test case/);
    });

    it('[S1.4.3-13] a non-JUnit root, corrupt XML, an empty body and junk after the root are refused', async () => {
      await expectRefusalAsync(() => xml('<html><body/></html>'), /not a JUnit report/);
      await expectRefusalAsync(() => xml('<testsuite><testcase name="a"></testsuite>'), /not well-formed XML/);
      await expectRefusalAsync(() => xml(''), /not well-formed XML/);
      await expectRefusalAsync(() => xml('<testsuite><testcase name="a"/></testsuite><junk/>'), /not well-formed XML/);
    });

    it('[S1.7-21] a content type other than XML or zip is refused', async () => {
      await expectRefusalAsync(() => parseTestReport(Buffer.from('<testsuite/>'), 'text/plain' as 'application/xml'), /content type/);
    });

    it('readJUnitDocument names the document in its refusal', () => {
      expect(() => readJUnitDocument(Buffer.from('<x/>'), 'zip entry "a.xml"')).to.throw(/zip entry "a\.xml"/);
    });
  });
});
