import { GateVerdict, ReportContext, Violation } from '../verdict';

const SHOWN = 20;
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** One screen: the verdict, the policy, up to 20 violations as a table, and what the exit code means. */
export function summary(o: Pick<ReportContext, 'targetLabel' | 'advisory'>, verdict: GateVerdict): string[] {
  const lines: string[] = [];
  const policy = verdict.policy ? Object.entries(verdict.policy).map(([k, v]) => `${k}=${v}`).join(' ') : '';
  lines.push(`Vigil gate for ${o.targetLabel}: ${verdict.passed ? 'PASSED' : 'FAILED'}${verdict.id !== undefined ? ` (verdict ${verdict.id})` : ''}`);
  if (policy) lines.push(`Policy: ${policy}`);
  const violations = verdict.violations ?? [];
  if (violations.length) {
    const shown = violations.slice(0, SHOWN);
    const head = ['RULE', 'SEVERITY', 'IDENTIFIER', 'PACKAGE', 'ISSUE'];
    const cells = (v: Violation) => [v.rule, v.severity ?? '', clip(v.identifier ?? '', 40), clip(v.package ?? '-', 40), String(v.issueId)];
    const findings = shown.filter((v) => v.issueId !== undefined).map(cells);
    const widths = head.map((h, i) => Math.max(h.length, ...findings.map((r) => r[i].length), ...(i === 0 ? shown.map((v) => v.rule.length) : [])));
    const row = (r: string[]) => `  ${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')}`;
    lines.push(`Violations (${violations.length}):`);
    lines.push(row(head));
    // A violation about the whole target (observation, coverage) has a rule and a reason only.
    for (const v of shown) lines.push(v.issueId === undefined ? `  ${v.rule.padEnd(widths[0])}  ${v.reason}` : row(cells(v)));
    if (violations.length > SHOWN) lines.push(`  … and ${violations.length - SHOWN} more (--format json prints them all; GET /api/v1/gate/verdicts keeps the verdict)`);
  }
  if (verdict.passed) lines.push('Result: passed (exit 0)');
  else if (o.advisory) lines.push('Result: failed, accepted in advisory mode (exit 3)');
  else lines.push('Result: failed (exit 1)');
  return lines;
}
