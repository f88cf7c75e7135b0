import { GateVerdict, ReportContext, titleOf } from '../verdict';

/** XML 1.0 text: the five escapes, and characters XML cannot hold at all replaced. */
function xml(text: string): string {
  return text
    .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/**
 * JUnit XML for CI test views: one suite for the target, one test case per violation (failed), or
 * one passing case when the gate passed. In advisory mode the failures are still failures: the
 * exit code (3) carries the leniency, the report the facts.
 */
export function junit(verdict: GateVerdict, ctx: ReportContext): string {
  const failures = verdict.violations.length;
  const tests = Math.max(1, failures);
  const suite = `Vigil gate: ${ctx.targetLabel}`;
  const cases = failures === 0
    ? [`    <testcase classname="vigil-gate" name="${xml(`${ctx.targetLabel} passes the gate`)}"/>`]
    : verdict.violations.map((v) => {
      const where = v.path ? `\n${v.path}${v.line ? `:${v.line}` : ''}` : '';
      const detail = `${v.reason}${v.issueId !== undefined ? `\nVigil issue ${v.issueId}` : ''}${where}`;
      return `    <testcase classname="vigil-gate.${xml(v.rule)}" name="${xml(titleOf(v))}"${v.path ? ` file="${xml(v.path)}"` : ''}${v.line ? ` line="${v.line}"` : ''}>\n`
        + `      <failure type="${xml(v.rule)}" message="${xml(v.reason)}">${xml(detail)}</failure>\n    </testcase>`;
    });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="vigil-gate" tests="${tests}" failures="${failures}" errors="0">`,
    `  <testsuite name="${xml(suite)}" tests="${tests}" failures="${failures}" errors="0" skipped="0"${verdict.at ? ` timestamp="${xml(verdict.at.replace(/Z$/, ''))}"` : ''}>`,
    '    <properties>',
    `      <property name="passed" value="${verdict.passed}"/>`,
    ...(verdict.id !== undefined ? [`      <property name="verdictId" value="${verdict.id}"/>`] : []),
    `      <property name="advisory" value="${ctx.advisory}"/>`,
    '    </properties>',
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
