import type { Principal } from '../../application/identity/principal';
import type { VisibilityReader } from '../../application/identity/visibility';
import { AppliedPolicy, GATE_FAILED_SIEM, StoredViolations } from '../../domain/gate/verdict-event';
import type { TargetKind } from '../../domain/shared/target-kind';
import { Database } from '../../infrastructure/db/database';
import { scopeToVisible } from '../identity/visibility';

export interface VerdictFilter {
  targetKind?: TargetKind;
  targetId?: number;
  /** ISO 8601; verdicts at or after it. */
  since?: string;
  limit: number;
  /** Page cursor: verdicts with a smaller id (the list runs newest first). */
  before?: number;
}

interface VerdictRow {
  id: number; target_kind: TargetKind; target_id: number; passed: boolean | number; violations: string; policy: string;
  account_id: number; api_key_id: number | null; at: string;
}

export function verdictView(r: VerdictRow) {
  const stored = JSON.parse(r.violations) as StoredViolations;
  const passed = Boolean(r.passed);
  return {
    id: Number(r.id), targetKind: r.target_kind, targetId: Number(r.target_id),
    repositoryId: r.target_kind === 'repository' ? Number(r.target_id) : null, containerId: r.target_kind === 'container' ? Number(r.target_id) : null,
    passed, violations: stored.items, violationCount: stored.count, violationsOmitted: stored.count - stored.items.length, counts: stored.counts,
    policy: JSON.parse(r.policy) as AppliedPolicy, accountId: Number(r.account_id), apiKeyId: r.api_key_id === null ? null : Number(r.api_key_id),
    at: r.at, siem: passed ? null : GATE_FAILED_SIEM,
  };
}

/** The verdict register (`gate_verdicts`, written by the gate projection) as GET /gate/verdicts answers it. */
export class VerdictQueries {
  constructor(private readonly db: Database, private readonly visibilities: VisibilityReader) {}

  /** Newest first, only verdicts on targets the caller sees. */
  async list(principal: Principal, f: VerdictFilter) {
    const visibility = await this.visibilities.of(principal);
    const k = this.db.knex;
    const q = k('gate_verdicts').orderBy('gate_verdicts.id', 'desc').limit(f.limit + 1)
      .select('id', 'target_kind', 'target_id', 'passed', 'violations', 'policy', 'account_id', 'api_key_id', 'at');
    if (f.before !== undefined) q.where('gate_verdicts.id', '<', f.before);
    if (f.targetKind !== undefined) q.where('gate_verdicts.target_kind', f.targetKind);
    if (f.targetId !== undefined) q.where('gate_verdicts.target_id', f.targetId);
    if (f.since !== undefined) q.where('gate_verdicts.at', '>=', f.since);
    if (!visibility.all || visibility.restriction) {
      q.where((w) => {
        w.whereIn(['gate_verdicts.target_kind', 'gate_verdicts.target_id'] as never, scopeToVisible(visibility, k('repositories').select(k.raw("'repository'"), 'repositories.id'), 'repository') as never)
          .orWhereIn(['gate_verdicts.target_kind', 'gate_verdicts.target_id'] as never, scopeToVisible(visibility, k('containers').select(k.raw("'container'"), 'containers.id'), 'container') as never);
      });
    }
    const rows: VerdictRow[] = await q;
    const items = rows.slice(0, f.limit).map(verdictView);
    return { items, next: rows.length > f.limit ? items[items.length - 1].id : null };
  }
}
