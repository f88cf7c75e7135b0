import { Knex } from 'knex';
import { ClaimFilter, LeaseRow, ScanLeaseStore } from '../../application/scans/ports';
import { affectedRows, Database } from '../db/database';
import { walkIndexOrder } from '../db/index-order';

/**
 * The claimable scans of an executor as a statement built on the claim's transaction, selecting
 * `s.id` and `s.attempts` from `scans as s` oldest due first (projections/scans/lifecycle-queries.ts
 * owns that table; the composition root hands its query in).
 */
export type ClaimCandidates = (q: Knex.Transaction, executor: ClaimFilter, now: Date) => Knex.QueryBuilder;

/**
 * The live claims of scans in `scan_leases` (ADR 0006), an operational table like `sessions`, never
 * projected. The unique (scan_id, attempt) key is the atomic claim across instances: of two
 * reservations of one attempt only one row exists. Heartbeats move `lease_expires_at` here instead of writing
 * an event each.
 */
export class SqlScanLeases implements ScanLeaseStore {
  /** Executors whose lock row this instance has seen in place (rows are never deleted). */
  private readonly lockRows = new Set<string>();

  constructor(private readonly db: Database, private readonly candidates: ClaimCandidates) {}

  /**
   * One short transaction per claim (ADR 0017): for an executor with a limit, lock its own row of
   * scan_executor_locks (claims of other executors never wait on it) and count its live leases;
   * then take the lease rows of the free slots' worth of candidates. On PostgreSQL the candidates
   * are locked `FOR UPDATE OF s SKIP LOCKED` inside the INSERT ... SELECT, so claimers running at
   * once take different scans instead of all racing for the oldest; a row another claim committed
   * just before ours meets the (scan_id, attempt) key and is skipped (ON CONFLICT DO NOTHING). The
   * key is the guarantee; the skip is what makes it fast.
   */
  async reserveClaimable(executor: ClaimFilter, now: Date, max: number, leaseExpiresAt: string, limit?: number): Promise<Array<{ scanId: number; attempt: number }>> {
    if (max <= 0) return [];
    const knex = this.db.knex;
    if (limit !== undefined && !this.lockRows.has(executor.worker)) {
      await knex('scan_executor_locks').insert({ worker: executor.worker }).onConflict('worker').ignore();
      this.lockRows.add(executor.worker);
    }
    return knex.transaction(async (trx) => {
      let want = max;
      if (limit !== undefined) {
        await trx('scan_executor_locks').where({ worker: executor.worker }).forUpdate().select('worker');
        // After the lock: a claim of this executor committed by another instance meanwhile is counted.
        const row = await trx('scan_leases').where({ worker: executor.worker }).where('lease_expires_at', '>', now.toISOString()).count({ n: '*' }).first();
        want = Math.min(max, limit - Number(row?.n ?? 0));
        if (want <= 0) return [];
      }
      return this.db.isPostgres ? this.takePostgres(trx, executor, now, want, leaseExpiresAt) : this.takeMysql(trx, executor, now, want, leaseExpiresAt);
    });
  }

  /**
   * A statement's snapshot is taken when it starts: a scan whose claim committed just before ours
   * locked it is no longer locked, so SKIP LOCKED does not skip it, and its lease row then meets the
   * key (ON CONFLICT DO NOTHING). Under a burst of claims a whole pick can be such rows. So the
   * statement also answers how many it picked; while some picked rows were taken by others meanwhile
   * and slots remain, it runs again with a fresh snapshot (a few rounds at most).
   */
  private async takePostgres(trx: Knex.Transaction, executor: ClaimFilter, now: Date, want: number, leaseExpiresAt: string) {
    const at = now.toISOString();
    // The candidates are walked in claim order on scans (status, not_before, id) and the walk stops at
    // the limit: 1 ms a claim instead of 250 ms under bench:agents (migration v032).
    await walkIndexOrder(trx);
    const taken: Array<{ scanId: number; attempt: number }> = [];
    for (let round = 0; round < 4 && taken.length < want; round++) {
      const pick = this.candidates(trx, executor, now).select('s.id', 's.attempts').limit(want - taken.length).forUpdate('s').skipLocked();
      const result = await trx.raw(
        `WITH pick AS (?),
         ins AS (
           INSERT INTO scan_leases (scan_id, attempt, worker, claimed_at, lease_expires_at, renewed_at)
           SELECT id, attempts + 1, ?, ?, ?, ? FROM pick
           ON CONFLICT DO NOTHING RETURNING scan_id, attempt
         )
         SELECT 'picked' AS what, count(*) AS scan_id, 0 AS attempt FROM pick
         UNION ALL SELECT 'taken', scan_id, attempt FROM ins`,
        [pick, executor.worker, at, leaseExpiresAt, at],
      );
      const rows = result.rows as Array<{ what: string; scan_id: number; attempt: number }>;
      const picked = Number(rows.find((r) => r.what === 'picked')?.scan_id ?? 0);
      const mine = rows.filter((r) => r.what === 'taken').map((r) => ({ scanId: Number(r.scan_id), attempt: Number(r.attempt) }));
      taken.push(...mine);
      if (mine.length === picked) break; // nothing lost to a claim committed meanwhile: nothing more to find now
    }
    return taken;
  }

  /**
   * MariaDB: the candidates read without locks, then their rows locked by primary key with SKIP
   * LOCKED (record locks only, no gap locks on the read model), then one INSERT IGNORE per lease row,
   * whose affected rows say whether the row is ours.
   */
  private async takeMysql(trx: Knex.Transaction, executor: ClaimFilter, now: Date, want: number, leaseExpiresAt: string) {
    const seen: Array<{ id: number }> = await this.candidates(trx, executor, now).select('s.id').limit(want * 4 + 4);
    if (seen.length === 0) return [];
    const locked: Array<{ id: number; attempts: number }> = await trx('scans').whereIn('id', seen.map((r) => Number(r.id))).where('status', 'pending')
      .orderBy('id').limit(want).forUpdate().skipLocked().select('id', 'attempts');
    const taken: Array<{ scanId: number; attempt: number }> = [];
    const at = now.toISOString();
    for (const row of locked) {
      const scanId = Number(row.id);
      const attempt = Number(row.attempts) + 1;
      const result = await trx.raw('INSERT IGNORE INTO scan_leases (scan_id, attempt, worker, claimed_at, lease_expires_at, renewed_at) VALUES (?, ?, ?, ?, ?, ?)',
        [scanId, attempt, executor.worker, at, leaseExpiresAt, at]);
      if (affectedRows(result) === 1) taken.push({ scanId, attempt });
    }
    return taken;
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

  async releaseMany(rows: ReadonlyArray<{ scanId: number; attempt: number }>): Promise<void> {
    if (rows.length === 0) return;
    await this.db.knex('scan_leases').where((q) => { for (const r of rows) q.orWhere({ scan_id: r.scanId, attempt: r.attempt }); }).del();
  }

  async lapsed(now: Date, limit: number): Promise<LeaseRow[]> {
    return this.db.knex('scan_leases').where('lease_expires_at', '<=', now.toISOString()).orderBy([{ column: 'lease_expires_at' }, { column: 'scan_id' }]).limit(limit);
  }
}
