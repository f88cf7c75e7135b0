import type { SchedulingReads } from '../../application/scans/ports';
import type { TargetKind } from '../../domain/shared/target-kind';
import { SchedulingCandidate, TargetRef, targetRef } from '../../domain/targets';
import { Database } from '../../infrastructure/db/database';
import { ScanTargetLookup } from '../targets/scan-target-lookup';

/** What a scheduling round reads: the targets' schedules (targets read model) and the targets busy with a scan (`scans`). */
export class SchedulingQueries implements SchedulingReads {
  constructor(private readonly db: Database, private readonly targets: ScanTargetLookup) {}

  candidates(): Promise<SchedulingCandidate[]> {
    return this.targets.schedulable();
  }

  /** Targets with a scan pending or running, in one query. */
  async busy(): Promise<ReadonlySet<TargetRef>> {
    const rows: Array<{ target_kind: TargetKind; target_id: number }> = await this.db.knex('scans')
      .whereIn('status', ['pending', 'scanning']).distinct('target_kind', 'target_id');
    return new Set(rows.map((r) => targetRef(r.target_kind, Number(r.target_id))));
  }
}
