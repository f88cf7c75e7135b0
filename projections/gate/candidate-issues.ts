import { candidateShape } from '../../application/gate/ports';
import { GateIssue, GatePolicy, isImportedOrPlugin, SEVERITIES, SEVERITY_RANK, Severity } from '../../domain/gate';
import type { TargetKind } from '../../domain/shared/target-kind';
import { SETTLING_STATUSES, TriageStatus } from '../../domain/triage/status';
import { Database } from '../../infrastructure/db/database';
import { preparedRows } from '../../infrastructure/db/prepared';

/**
 * The gate's candidate issues. `issues` belongs to the backlog projection; this statement reads it
 * here all the same, as the gate's own prepared statement on the CI path (ADR 0008): one statement,
 * only the columns the gate reads, only the open issues that can violate under the policy, planned
 * once per pooled connection. It implements the GateReads port's `candidateIssues`; nothing else
 * reads `issues` from here.
 */

/** Issue types the SQL leaves out without include_plugins; the domain decides again on what it reads. */
const PLUGIN_TYPES = ['imported', 'plugin'].filter(isImportedOrPlugin);

const literals = (values: readonly string[]) => values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ');

const statements = new Map<string, { name: string; text: string }>();

/**
 * The candidate query for one policy shape (threshold and flags), built once. The vocabularies are
 * our own constants, written into the text so that PostgreSQL's partial indexes of open issues
 * (v009) serve a generic plan.
 */
function candidateStatement(policy: GatePolicy): { name: string; text: string } {
  const shape = candidateShape(policy);
  let statement = statements.get(shape);
  if (!statement) {
    const threshold = SEVERITY_RANK[policy.severity];
    const atOrAbove = SEVERITIES.filter((s) => SEVERITY_RANK[s] >= threshold);
    const text = 'SELECT id, identifier, rule_id, severity, package_name, kev, fixable, triage_status, type, path, line FROM issues'
      + " WHERE target_kind = ? AND target_id = ? AND status = 'open'"
      + ` AND (kev = TRUE OR severity IN (${literals(atOrAbove)}))`
      + (policy.includePlugins ? '' : ` AND type NOT IN (${literals(PLUGIN_TYPES)})`)
      + (policy.includeTriaged ? '' : ` AND triage_status NOT IN (${literals(SETTLING_STATUSES)})`)
      + (policy.fixableOnly ? ' AND fixable = TRUE' : '')
      + ' ORDER BY id';
    statement = { name: `vigil_gate_candidates_${shape}`, text };
    statements.set(shape, statement);
  }
  return statement;
}

interface CandidateRow {
  id: number; identifier: string | null; rule_id: string; severity: string; package_name: string | null;
  kev: boolean | number; fixable: boolean | number | null; triage_status: string; type: string; path: string | null; line: number | null;
}

/** The open issues of a target that can violate under the policy (GateReads.candidateIssues). */
export async function candidateIssues(db: Database, kind: TargetKind, id: number, policy: GatePolicy): Promise<readonly GateIssue[]> {
  const { name, text } = candidateStatement(policy);
  const rows = await preparedRows<CandidateRow>(db, name, text, [kind, id]);
  return rows.map((r) => ({
    issueId: Number(r.id), identifier: r.identifier ?? r.rule_id, severity: r.severity as Severity, package: r.package_name,
    kev: Boolean(r.kev), fixable: Boolean(r.fixable), triageStatus: r.triage_status as TriageStatus, type: r.type,
    path: r.path, line: r.line === null ? null : Number(r.line),
  }));
}
