import type { TestReportFigures } from '../../infrastructure/parsers/junit';
import type { Verdict } from './support';

/** The JUnit corpus decisions and the independent counts, shared with the import spec over HTTP (not a spec file). */

export const DECISIONS: Record<string, { verdict: Verdict; why: string; pattern?: RegExp }> = {
  'junit/jest-junit__empty-testsuite.xml': { verdict: 'refuse', why: 'S1.4.3-37: no test case, never zero', pattern: /no test case/ },
  'junit/jest-junit__empty-testsuites.xml': { verdict: 'refuse', why: 'S1.4.3-37', pattern: /no test case/ },
  'junit/phpunit__empty-selfclosing.xml': { verdict: 'refuse', why: 'S1.4.3-37', pattern: /no test case/ },
  'junit/edge__no-attributes.xml': { verdict: 'accept', why: 'unnamed cases are counted, never merged' },
  'junit/security__xxe-parameter-entity.xml': { verdict: 'refuse', why: 'S1.4.3-38: entity declarations', pattern: /declares entities/ },
  'junit/edge__non-junit-root.xml': { verdict: 'refuse', why: 'S1.4.3-13', pattern: /not a JUnit report/ },
  'junit/edge__corrupt-xml.xml': { verdict: 'refuse', why: 'S1.4.3-13', pattern: /line 11/ },
};

/** Retries merged by design (see junit.ts): the regex count below counts every attempt. */
export const RETRIES: Record<string, Partial<TestReportFigures>> = {
  'junit/pytest-rerunfailures__flaky.xml': { tests: 3, failures: 0, errors: 0, skipped: 0 },
};

/** Outcomes counted with regular expressions over <testcase> blocks, independently of the parser. */
export function independent(text: string): { tests: number; failures: number; errors: number; skipped: number } {
  const blocks = text.match(/<testcase\b(?:[^>]*\/>|[^>]*>[\s\S]*?<\/testcase>)/g) ?? [];
  const count = { tests: blocks.length, failures: 0, errors: 0, skipped: 0 };
  for (const b of blocks) {
    if (/<error\b/.test(b)) count.errors++;
    else if (/<failure\b/.test(b)) count.failures++;
    else if (/<skipped\b/.test(b) || /status=['"](disabled|notrun)['"]/.test(b)) count.skipped++;
  }
  return count;
}
