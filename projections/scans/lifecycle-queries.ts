import { Knex } from 'knex';
import type { ClaimableScans, ClaimFilter } from '../../application/scans/ports';
import { Database } from '../../infrastructure/db/database';
import { preparedRows } from '../../infrastructure/db/prepared';
import { ScanTargetLookup } from '../targets/scan-target-lookup';

/** The probe statement's `now`, marked in its bindings (no other binding of it is a timestamp). */
const SIGNATURE_NOW = new Date(0).toISOString();

/**
 * The scans read model as the lifecycle reads it: the claim's candidates and the running scans that
 * lost their lease row. Both anti-join `scan_leases`, the scans context's operational table of live
 * claims (ADR 0006), in the same statement: a candidate whose next attempt is reserved already is
 * left out before the limit, not after it.
 */
export class ScanLifecycleQueries implements ClaimableScans {
  private readonly signatureStatements = new Map<boolean, { sql: string; bindings: readonly unknown[] }>();

  constructor(private readonly db: Database, private readonly targets: ScanTargetLookup) {}

  /**
   * The claimable scans of `executor` as a statement built on `q` (the claim's own transaction):
   * `s.id` and `s.attempts` of pending scans due at `now`, oldest due first, none of a target with a
   * scan running, none whose next attempt is reserved, none needing a credential the executor cannot
   * hold, none whose target requires what the executor does not carry (with `labels`: a pin to
   * another agent, a label). The lease store runs it inside its reservation
   * (infrastructure/scans/sql-scan-leases.ts); the probes leave placement out.
   */
  candidates(q: Knex | Knex.Transaction, executor: Pick<ClaimFilter, 'holdsCredentials'> & Partial<Pick<ClaimFilter, 'labels' | 'agentId'>>, now: Date): Knex.QueryBuilder {
    const query = q('scans as s')
      .leftJoin('scan_leases as l', (j) => { j.on('l.scan_id', '=', 's.id').andOn('l.attempt', '=', q.raw('s.attempts + 1')); })
      .where('s.status', 'pending').where('s.not_before', '<=', now.toISOString()).whereNull('l.scan_id')
      // One scan of a target at a time: a waiting scan starts when the running one has ended.
      .whereNotExists(q('scans as r').select(q.raw('1')).whereRaw('r.target_kind = s.target_kind AND r.target_id = s.target_id').where('r.status', 'scanning'))
      .orderBy([{ column: 's.not_before' }, { column: 's.id' }]);
    if (!executor.holdsCredentials) query.where('s.requires_credential', false).whereNotExists(this.targets.namingCredential('s'));
    // Placement (S1.2.1-20, S1.8.3-42): none of a target pinned to another agent or requiring a label the executor lacks.
    if (executor.labels !== undefined) query.whereNotExists(this.targets.requirementUnmet('s', { agentId: executor.agentId ?? null, labels: executor.labels }));
    return query;
  }

  async claimable(now: Date, limit: number, holdsCredentials: boolean): Promise<number[]> {
    const rows: Array<{ id: number }> = await this.candidates(this.db.knex, { holdsCredentials }, now).limit(limit).select('s.id');
    return rows.map((r) => Number(r.id));
  }

  /**
   * What is claimable, in a few numbers (how many, the sums of their ids and attempts), or null when
   * nothing is: the waiting long polls are woken when this changes, not while it stays the same (a
   * scan pinned to another agent does not wake every poll each second).
   */
  async signature(now: Date, holdsCredentials: boolean): Promise<string | null> {
    const statement = this.signatureStatement(holdsCredentials);
    const values = statement.bindings.map((b) => (b === SIGNATURE_NOW ? now.toISOString() : b));
    const [row] = await preparedRows<{ n: number | string; ids: number | string | null; attempts: number | string | null }>(
      this.db, `vigil_claimable_signature_${holdsCredentials ? 'holder' : 'plain'}`, statement.sql, values);
    const n = Number(row?.n ?? 0);
    return n === 0 ? null : `${n}:${String(row!.ids)}:${String(row!.attempts)}`;
  }

  /**
   * The probe runs every second while agents wait: its statement is built once per kind of executor
   * (`now` left as a marked binding) and, on PostgreSQL, prepared once per connection, instead of the
   * query builder compiling the same anti-joins each second (bench:agents' idle figure).
   */
  private signatureStatement(holdsCredentials: boolean): { sql: string; bindings: readonly unknown[] } {
    let statement = this.signatureStatements.get(holdsCredentials);
    if (!statement) {
      const knex = this.db.knex;
      const inner = this.candidates(knex, { holdsCredentials }, new Date(SIGNATURE_NOW)).clearOrder().select('s.id', 's.attempts');
      const built = knex.from(inner.as('c')).select(knex.raw('count(*) as n, sum(c.id) as ids, sum(c.attempts) as attempts')).toSQL();
      statement = { sql: built.sql, bindings: built.bindings };
      this.signatureStatements.set(holdsCredentials, statement);
    }
    return statement;
  }

  async unleased(claimedBefore: Date, limit: number): Promise<Array<{ scanId: number; attempt: number; startedAt: string }>> {
    const knex = this.db.knex;
    const rows: Array<{ id: number; attempts: number; started_at: string }> = await knex('scans as s').where('s.status', 'scanning')
      .where('s.started_at', '<=', claimedBefore.toISOString())
      .whereNotExists(knex('scan_leases as l').select(knex.raw('1')).whereRaw('l.scan_id = s.id AND l.attempt = s.attempts'))
      .select('s.id', 's.attempts', 's.started_at').limit(limit);
    return rows.map((r) => ({ scanId: Number(r.id), attempt: Number(r.attempts), startedAt: r.started_at }));
  }
}
