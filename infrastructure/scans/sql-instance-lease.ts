import { InstanceLease } from '../../application/scans/ports';
import { Database } from '../db/database';
import { isUniqueViolation } from '../eventstore/sql-event-store';

/**
 * A row of `background_leases` per background loop that must run on one instance at a time (the
 * scheduler, name `scan-scheduler`): the conditional update keeps it for its holder or takes it over
 * once it lapsed, the insert takes a free one; exactly one instance's statement succeeds.
 */
export class SqlInstanceLease implements InstanceLease {
  constructor(private readonly db: Database, readonly name: string, readonly holder: string) {}

  async acquire(now: Date, ttlMs: number): Promise<boolean> {
    const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
    // Renewal first: the usual case for a loop that holds its lease (the SIEM deliverer renews it
    // per batch) costs one statement, not a refused insert and its error.
    const updated = await this.db.knex('background_leases').where({ name: this.name })
      .where((q) => { q.where('holder', this.holder).orWhere('expires_at', '<=', now.toISOString()); })
      .update({ holder: this.holder, expires_at: expiresAt });
    if (Number(updated) === 1) return true;
    try {
      await this.db.knex('background_leases').insert({ name: this.name, holder: this.holder, expires_at: expiresAt });
      return true;
    } catch (error) {
      // Held by another instance (the update found it unexpired), or inserted by one meanwhile.
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async release(): Promise<void> {
    await this.db.knex('background_leases').where({ name: this.name, holder: this.holder }).del();
  }
}
