import { LeaseRow, ScanLeaseStore } from '../../application/scans/ports';
import { Database } from '../db/database';
import { isUniqueViolation } from '../eventstore/sql-event-store';

/**
 * The live claims of scans in `scan_leases` (ADR 0006), an operational table like `sessions`, never
 * projected. The unique (scan_id, attempt) insert is the atomic claim across instances: the second
 * instance's insert fails and it moves on. Heartbeats move `lease_expires_at` here instead of writing
 * an event each.
 */
export class SqlScanLeases implements ScanLeaseStore {
  constructor(private readonly db: Database) {}

  async reserve(scanId: number, attempt: number, worker: string, now: Date, leaseExpiresAt: string, limit?: number): Promise<boolean> {
    if (limit !== undefined) return this.reserveWithin(scanId, attempt, worker, now, leaseExpiresAt, limit);
    try {
      await this.db.knex('scan_leases').insert({
        scan_id: scanId, attempt, worker, claimed_at: now.toISOString(), lease_expires_at: leaseExpiresAt, renewed_at: now.toISOString(),
      });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /**
   * The claim of an executor with a limit (an agent, S1.4.7-15): one transaction locks the executor's
   * row of scan_executor_locks, counts its claimed, unreported, unexpired leases and inserts the new
   * one only below the limit. A second instance claiming for the same executor waits on the lock and
   * then counts the first one's lease, so the limit holds across instances (ADR 0017).
   */
  private async reserveWithin(scanId: number, attempt: number, worker: string, now: Date, leaseExpiresAt: string, limit: number): Promise<boolean> {
    const knex = this.db.knex;
    await knex('scan_executor_locks').insert({ worker }).onConflict('worker').ignore();
    try {
      return await knex.transaction(async (trx) => {
        await trx('scan_executor_locks').where({ worker }).forUpdate().select('worker');
        const row = await trx('scan_leases').where({ worker }).where('lease_expires_at', '>', now.toISOString()).count({ n: '*' }).first();
        if (Number(row?.n ?? 0) >= limit) return false;
        const taken = await trx('scan_leases').where({ scan_id: scanId, attempt }).first();
        if (taken) return false;
        await trx('scan_leases').insert({
          scan_id: scanId, attempt, worker, claimed_at: now.toISOString(), lease_expires_at: leaseExpiresAt, renewed_at: now.toISOString(),
        });
        return true;
      });
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** The executor's claimed, unreported, unexpired scans (its load). */
  async held(worker: string, now: Date): Promise<number> {
    const row = await this.db.knex('scan_leases').where({ worker }).where('lease_expires_at', '>', now.toISOString()).count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }

  async get(scanId: number, attempt: number): Promise<LeaseRow | undefined> {
    return this.db.knex('scan_leases').where({ scan_id: scanId, attempt }).first();
  }

  async renew(scanId: number, attempt: number, worker: string, now: Date, until: string): Promise<boolean> {
    const updated = await this.db.knex('scan_leases')
      .where({ scan_id: scanId, attempt, worker }).where('lease_expires_at', '>', now.toISOString())
      .update({ lease_expires_at: until, renewed_at: now.toISOString() });
    return Number(updated) === 1;
  }

  async release(scanId: number, attempt: number): Promise<void> {
    await this.db.knex('scan_leases').where({ scan_id: scanId, attempt }).del();
  }

  async lapsed(now: Date, limit: number): Promise<LeaseRow[]> {
    return this.db.knex('scan_leases').where('lease_expires_at', '<=', now.toISOString()).orderBy([{ column: 'lease_expires_at' }, { column: 'scan_id' }]).limit(limit);
  }
}
