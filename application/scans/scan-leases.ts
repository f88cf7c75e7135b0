import { Database } from '../../infrastructure/db/database';

/** A unique-key violation on PostgreSQL, PGlite or MySQL/MariaDB. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errno?: number } | null;
  return e?.code === '23505' || e?.code === 'ER_DUP_ENTRY' || e?.errno === 1062;
}

export interface LeaseRow {
  scan_id: number;
  attempt: number;
  worker: string;
  claimed_at: string;
  lease_expires_at: string;
  renewed_at: string;
}

/**
 * The live claims of scans (ADR 0006): one row per claimed attempt in `scan_leases`, an operational
 * table like `sessions`, never projected. The unique (scan_id, attempt) insert is the atomic claim
 * across instances; heartbeats move `lease_expires_at` here instead of writing an event each. The
 * event log stays the source of truth: a row without its ScanClaimed event is void (the lapse pass
 * removes it), and a row whose attempt has ended is deleted.
 */
export class ScanLeases {
  constructor(private readonly db: Database) {}

  /** Takes attempt `attempt` of the scan for `worker`; false when another executor took it first. */
  async reserve(scanId: number, attempt: number, worker: string, now: Date, leaseExpiresAt: string): Promise<boolean> {
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

  async get(scanId: number, attempt: number): Promise<LeaseRow | undefined> {
    return this.db.knex('scan_leases').where({ scan_id: scanId, attempt }).first();
  }

  /** Moves the lease to `until`, only while `worker` holds it and it has not lapsed at `now`. */
  async renew(scanId: number, attempt: number, worker: string, now: Date, until: string): Promise<boolean> {
    const updated = await this.db.knex('scan_leases')
      .where({ scan_id: scanId, attempt, worker }).where('lease_expires_at', '>', now.toISOString())
      .update({ lease_expires_at: until, renewed_at: now.toISOString() });
    return Number(updated) === 1;
  }

  async release(scanId: number, attempt: number): Promise<void> {
    await this.db.knex('scan_leases').where({ scan_id: scanId, attempt }).del();
  }

  /** Leases lapsed at `now`, oldest first. */
  async lapsed(now: Date, limit: number): Promise<LeaseRow[]> {
    return this.db.knex('scan_leases').where('lease_expires_at', '<=', now.toISOString()).orderBy([{ column: 'lease_expires_at' }, { column: 'scan_id' }]).limit(limit);
  }

  /** Live leases of these scans, for the views. */
  async of(scanIds: readonly number[]): Promise<Map<string, LeaseRow>> {
    if (scanIds.length === 0) return new Map();
    const rows: LeaseRow[] = await this.db.knex('scan_leases').whereIn('scan_id', [...scanIds]);
    return new Map(rows.map((r) => [`${Number(r.scan_id)}:${Number(r.attempt)}`, r]));
  }
}

/**
 * A lease row per background loop that must run on one instance at a time (the scheduler): an
 * instance takes it when it is free or lapsed, keeps it by taking it again each round, and gives it
 * up when it stops. A lapsed holder (a crashed instance) is replaced after `ttlMs`.
 */
export class BackgroundLease {
  constructor(private readonly db: Database, readonly name: string, readonly holder: string) {}

  async acquire(now: Date, ttlMs: number): Promise<boolean> {
    const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
    try {
      await this.db.knex('background_leases').insert({ name: this.name, holder: this.holder, expires_at: expiresAt });
      return true;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
    const updated = await this.db.knex('background_leases').where({ name: this.name })
      .where((q) => { q.where('holder', this.holder).orWhere('expires_at', '<=', now.toISOString()); })
      .update({ holder: this.holder, expires_at: expiresAt });
    return Number(updated) === 1;
  }

  async release(): Promise<void> {
    await this.db.knex('background_leases').where({ name: this.name, holder: this.holder }).del();
  }
}
