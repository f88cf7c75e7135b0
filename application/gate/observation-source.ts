import type { TargetObservation } from '../../domain/gate/observation';
import type { TargetKind } from '../identity/visibility';
import { Database } from '../../infrastructure/db/database';
import { preparedRows } from '../../infrastructure/db/prepared';

/**
 * What the gate needs to know of a target's scan history (spec 1 §7, S1.7-30..33): has any scan
 * completed, and how did the newest finished one end. Pending and running scans are not finished
 * and never count (S1.7-33). A port, so that the gate does not reach into the scans context.
 */
export interface ObservationSource {
  observe(targetKind: TargetKind, targetId: number): Promise<TargetObservation>;
}

/**
 * Reads the scans read model (projections/scans.ts) in one statement: a gate call is on the CI
 * path, and each round trip counts when 32 pipelines ask at once. Both sub-queries walk the
 * (target_kind, target_id, id) index of one target's scans; the newest finished scan is the one
 * that finished last (ties, or no time recorded: the larger id).
 */
export class ScanObservationSource implements ObservationSource {
  constructor(private readonly db: Database) {}

  async observe(targetKind: TargetKind, targetId: number): Promise<TargetObservation> {
    const rows = await preparedRows<{ newest: string | null; any_completed: boolean | number | string }>(this.db, 'vigil_gate_observation',
      `SELECT (SELECT status FROM scans WHERE target_kind = ? AND target_id = ? AND status IN ('completed', 'failed')
                ORDER BY CASE WHEN finished_at IS NULL THEN 1 ELSE 0 END, finished_at DESC, id DESC LIMIT 1) AS newest,
              CASE WHEN EXISTS (SELECT 1 FROM scans WHERE target_kind = ? AND target_id = ? AND status = 'completed') THEN 1 ELSE 0 END AS any_completed`,
      [targetKind, targetId, targetKind, targetId],
    );
    const row = rows[0];
    return {
      anyScanCompleted: Number(row.any_completed) === 1,
      newestFinishedScanStatus: (row.newest ?? null) as TargetObservation['newestFinishedScanStatus'],
    };
  }
}
