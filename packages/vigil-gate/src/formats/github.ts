import { appendFileSync } from 'node:fs';
import { GateVerdict, ReportContext, titleOf } from '../verdict';
import { summary } from './text';

/** Workflow-command escapes: the message part. */
const data = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
/** ... and a property value (file, line, title), which also may not hold ':' or ','. */
const property = (s: string) => data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');

/**
 * GitHub Actions: one `::error` annotation per violation (`::warning` in advisory mode), on the
 * finding's file and line where Vigil knows them, then the text summary for the log.
 */
export function githubAnnotations(verdict: GateVerdict, ctx: ReportContext): string[] {
  const command = ctx.advisory ? 'warning' : 'error';
  const lines = verdict.violations.map((v) => {
    const props = [
      ...(v.path ? [`file=${property(v.path)}`] : []),
      ...(v.path && v.line ? [`line=${v.line}`] : []),
      `title=${property(v.identifier === undefined ? `Vigil gate: ${v.rule}` : `Vigil gate: ${v.rule} ${titleOf(v)}`)}`,
    ];
    return `::${command} ${props.join(',')}::${data(`${v.reason}${v.issueId !== undefined ? ` (Vigil issue ${v.issueId})` : ''}`)}`;
  });
  return [...lines, ...summary(ctx, verdict)];
}

/** The job's step summary (Markdown), appended to the file $GITHUB_STEP_SUMMARY names. */
export function stepSummary(verdict: GateVerdict, ctx: ReportContext): string {
  const outcome = verdict.passed ? '✅ passed' : ctx.advisory ? '⚠️ failed (advisory: the job goes on)' : '❌ failed';
  const lines = [`### Vigil gate: ${outcome}`, '', `Target: ${ctx.targetLabel}${verdict.id !== undefined ? ` · verdict ${verdict.id}` : ''}`, ''];
  if (verdict.policy) lines.push(`Policy: ${Object.entries(verdict.policy).map(([k, v]) => `\`${k}=${v}\``).join(' ')}`, '');
  if (verdict.violations.length) {
    lines.push('| Rule | Severity | Finding | Where | Issue |', '|---|---|---|---|---|');
    for (const v of verdict.violations.slice(0, 100)) {
      const where = v.path ? `${v.path}${v.line ? `:${v.line}` : ''}` : '';
      lines.push(`| ${cell(v.rule)} | ${cell(v.severity ?? '')} | ${cell(v.issueId === undefined ? v.reason : titleOf(v))} | ${cell(where)} | ${v.issueId ?? ''} |`);
    }
    if (verdict.violations.length > 100) lines.push('', `… and ${verdict.violations.length - 100} more.`);
  }
  return `${lines.join('\n')}\n`;
}

export function writeStepSummary(file: string, verdict: GateVerdict, ctx: ReportContext): void {
  appendFileSync(file, stepSummary(verdict, ctx));
}
