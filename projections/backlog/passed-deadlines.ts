import type { PassedDeadline, PassedDeadlines } from '../../application/triage/ports';
import { Database } from '../../infrastructure/db/database';

/** Triage statuses that settle an issue: its deadline no longer signals (spec 2 §6, VGL-SEC-030 "unsettled"). */
const SETTLED = ['not_affected', 'will_not_fix', 'fixed'];

/** The deadline watch's read (PassedDeadlines) of the `issues` table. */
export class SqlPassedDeadlines implements PassedDeadlines {
  constructor(private readonly db: Database) {}

  async firstSeenBetween(severity: PassedDeadline['severity'], from: string, to: string, after: number, limit: number): Promise<PassedDeadline[]> {
    // first_seen_at is an ISO 8601 instant written by toISOString: text order is time order.
    const rows: Array<{ id: number; issue_key: string; target_kind: string; target_id: number; severity: string; first_seen_at: string }> = await this.db.knex('issues')
      .select('id', 'issue_key', 'target_kind', 'target_id', 'severity', 'first_seen_at')
      .where({ status: 'open', severity }).whereNotIn('triage_status', SETTLED)
      .where('first_seen_at', '>=', from).where('first_seen_at', '<', to)
      .where('id', '>', after).orderBy('id').limit(limit);
    return rows.map((r) => ({
      id: Number(r.id), issueKey: r.issue_key, targetKind: r.target_kind, targetId: Number(r.target_id), severity: r.severity as PassedDeadline['severity'], firstSeenAt: r.first_seen_at,
    }));
  }
}
