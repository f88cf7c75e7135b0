import { Database } from '../../infrastructure/db/database';

/** The scan queue for GET /metrics: how many scans stand in each status (`scans` read model), installation-wide. */
export class ScanQueueQueries {
  constructor(private readonly db: Database) {}

  async countsByStatus(): Promise<Record<string, number>> {
    const rows: Array<{ status: string; n: number | string }> = await this.db.knex('scans').select('status').count({ n: '*' }).groupBy('status');
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }
}
