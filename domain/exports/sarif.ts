import type { DocumentContext, ExportIssue } from './model';

const SETTLED = new Set(['not_affected', 'will_not_fix', 'fixed']);
const LEVEL: Record<string, 'error' | 'warning' | 'note'> = { critical: 'error', high: 'error', medium: 'warning', low: 'note' };

/** A repository path as a SARIF artifact URI (a relative reference); package URLs and empty paths have none. */
function artifactUri(path: string): string | null {
  if (!path || path.startsWith('pkg:')) return null;
  return encodeURI(path.replace(/^\/+/, ''));
}

/**
 * SARIF 2.1.0 of a target's backlog: its open issues, one run whose driver is Vigil with the rules the
 * results name, each result carrying its issue id; a settled triage (not_affected, will_not_fix, fixed)
 * is an accepted external suppression (S1.4.5-19). VIGIL_PUBLIC_URL is the driver's information URI.
 */
export function* sarifLog(ctx: DocumentContext, issues: readonly ExportIssue[]): Generator<string> {
  const open = issues.filter((i) => i.open).sort((a, b) => a.id - b.id);
  const rules = [...new Set(open.map((i) => i.ruleId))].sort();
  const ruleIndex = new Map(rules.map((r, n) => [r, n]));
  const driver: Record<string, unknown> = { name: ctx.brand, version: ctx.version };
  if (ctx.publicUrl) driver.informationUri = ctx.publicUrl;
  driver.rules = rules.map((id) => ({ id }));
  yield JSON.stringify({ $schema: 'https://json.schemastore.org/sarif-2.1.0.json', version: '2.1.0' }).slice(0, -1);
  yield `,"runs":[{"tool":${JSON.stringify({ driver })}`;
  yield `,"invocations":${JSON.stringify([{ executionSuccessful: true, endTimeUtc: ctx.timestamp }])}`;
  yield ',"results":[';
  let first = true;
  for (const i of open) {
    const result: Record<string, unknown> = { ruleId: i.ruleId, ruleIndex: ruleIndex.get(i.ruleId), level: LEVEL[i.severity] ?? 'warning', message: { text: i.title || i.ruleId } };
    const uri = artifactUri(i.path);
    if (uri) result.locations = [{ physicalLocation: { artifactLocation: { uri }, ...(i.line && i.line > 0 ? { region: { startLine: i.line } } : {}) } }];
    else if (i.path) result.locations = [{ logicalLocations: [{ fullyQualifiedName: i.path, kind: 'package' }] }];
    result.partialFingerprints = { 'vigilIssue/v1': String(i.id) };
    if (SETTLED.has(i.triageStatus)) {
      result.suppressions = [{ kind: 'external', status: 'accepted', justification: `Triage ${i.triageStatus}${i.justification ? ` (${i.justification})` : ''}` }];
    }
    result.properties = { triageStatus: i.triageStatus, type: i.type, tool: i.toolName };
    yield (first ? '' : ',') + JSON.stringify(result);
    first = false;
  }
  yield ']}]}';
}
