import type { ClaimableScans } from '../../application/scans/ports';
import { Database } from '../../infrastructure/db/database';
import { ScanTargetLookup } from '../targets/scan-target-lookup';

/**
 * The scans read model as the lifecycle reads it: the claim's candidates and the running scans that
 * lost their lease row. Both anti-join `scan_leases`, the scans context's operational table of live
 * claims (ADR 0006), in the same statement: a candidate whose next attempt is reserved already is
 * left out before the limit, not after it.
 */
export class ScanLifecycleQueries implements ClaimableScans {
  constructor(private readonly db: Database, private readonly targets: ScanTargetLookup) {}

  async claimable(now: Date, limit: number, holdsCredentials: boolean): Promise<number[]> {
    const knex = this.db.knex;
    const q = knex('scans as s')
      .leftJoin('scan_leases as l', (j) => { j.on('l.scan_id', '=', 's.id').andOn('l.attempt', '=', knex.raw('s.attempts + 1')); })
      .where('s.status', 'pending').where('s.not_before', '<=', now.toISOString()).whereNull('l.scan_id')
      // One scan of a target at a time: a waiting scan starts when the running one has ended.
      .whereNotExists(knex('scans as r').select(knex.raw('1')).whereRaw('r.target_kind = s.target_kind AND r.target_id = s.target_id').where('r.status', 'scanning'))
      .orderBy([{ column: 's.not_before' }, { column: 's.id' }]).limit(limit).select('s.id');
    if (!holdsCredentials) q.where('s.requires_credential', false).whereNotExists(this.targets.namingCredential('s'));
    const rows: Array<{ id: number }> = await q;
    return rows.map((r) => Number(r.id));
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
