import type { DueReview, DueReviews } from '../../application/triage/ports';
import { Database } from '../../infrastructure/db/database';

/** The review scheduler's read (DueReviews): will_not_fix issues whose review date has come, by id. */
export class SqlDueReviews implements DueReviews {
  constructor(private readonly db: Database) {}

  async due(now: Date, after: number, limit: number): Promise<DueReview[]> {
    // review_date is an ISO 8601 instant written by toISOString: text order is time order.
    const rows: Array<{ id: number; issue_key: string }> = await this.db.knex('issues')
      .select('id', 'issue_key').where('triage_status', 'will_not_fix').whereNotNull('review_date').where('review_date', '<=', now.toISOString())
      .where('id', '>', after).orderBy('id').limit(limit);
    return rows.map((r) => ({ id: Number(r.id), issueKey: r.issue_key }));
  }
}
