import { Finding, IssueType, Provenance } from '../../domain/backlog/issue';
import { RunningVigil } from './vigil';

let record = 1_000_000;

/**
 * Puts findings into a target's backlog through the one ingestion path (BacklogService), as an
 * import or a scan would, for specs of what reads the backlog (triage, gate, scorecards).
 * `toolKey` defaults to a scanner's; pass the same scope again without a finding to resolve it.
 */
export async function seedFindings(
  v: RunningVigil,
  target: { kind: 'repository' | 'container'; id: number },
  findings: Array<Partial<Finding> & { ruleId: string }>,
  options: { toolKey?: string; type?: IssueType; toolName?: string } = {},
): Promise<{ created: number; resolved: number; reopened: number }> {
  const toolKey = options.toolKey ?? 'scanner:vulnerability';
  const provenance: Provenance = { origin: toolKey.startsWith('import:') ? 'import' : 'scan', source: null, toolName: options.toolName ?? 'seed', toolVersion: '1.0', recordId: ++record };
  const full: Finding[] = findings.map((f) => ({
    targetKind: target.kind, targetId: target.id, toolKey, path: '', type: options.type ?? 'vulnerability', severity: 'high', line: null,
    title: f.ruleId, identifier: f.ruleId, packageName: null, packageVersion: null, fixable: null, ...f,
  }));
  return v.services.backlog.ingest(
    { actor: null, now: v.services.clock.now() },
    { targetKind: target.kind, targetId: target.id, toolKeys: [toolKey] },
    full,
    provenance,
    () => ({ stream: `seed-${provenance.recordId}`, events: [{ type: 'FindingsSeeded', data: { recordId: provenance.recordId } }], expectedRevision: 'no_stream' }),
  );
}
