import type { TargetObservation } from '../../domain/gate/observation';
import { TARGET_TABLE } from '../../projections/targets/tables';
import { type TargetKind } from '../../domain/shared/target-kind';
import { Database } from '../../infrastructure/db/database';
import { preparedRows } from '../../infrastructure/db/prepared';
import { BacklogVersion } from './verdict-cache';

/** What the gate reads of a target before its issues: the row (for visibility), its scans, the backlog's version. */
export interface TargetState {
  row: { id: number; project_id: number | null };
  observation: TargetObservation;
  /** BacklogVersion (verdict-cache.ts), read here, before the candidate issues. */
  backlogVersion: string;
}

/**
 * The gate's first read in one statement: the target's row, the scan observation (spec 1 §7,
 * S1.7-30..33: has a scan completed, how did the newest finished one end; pending and running scans
 * never count) and the backlog version the candidate cache keys on. A gate call is on every CI
 * pipeline's path and each round trip costs; these three were three statements.
 */
export class GateReads {
  private readonly text: Record<TargetKind, string>;

  constructor(private readonly db: Database, private readonly version: BacklogVersion) {
    const statement = (kind: TargetKind) => `SELECT t.id, t.project_id,
        (SELECT s.status FROM scans s WHERE s.target_kind = '${kind}' AND s.target_id = t.id AND s.status IN ('completed', 'failed')
          ORDER BY CASE WHEN s.finished_at IS NULL THEN 1 ELSE 0 END, s.finished_at DESC, s.id DESC LIMIT 1) AS newest,
        CASE WHEN EXISTS (SELECT 1 FROM scans s WHERE s.target_kind = '${kind}' AND s.target_id = t.id AND s.status = 'completed') THEN 1 ELSE 0 END AS any_completed,
        ${version.sql} AS backlog_version
      FROM ${TARGET_TABLE[kind]} t WHERE t.id = ?`;
    this.text = { repository: statement('repository'), container: statement('container') };
  }

  /** Null when no such target exists. */
  async targetState(kind: TargetKind, id: number): Promise<TargetState | null> {
    type Row = { id: number; project_id: number | null; newest: string | null; any_completed: number | string | boolean; backlog_version: number | string | null };
    const [row] = await preparedRows<Row>(this.db, `vigil_gate_target_${kind}_${this.version.projections.length}`, this.text[kind], [...this.version.projections, id]);
    if (!row) return null;
    return {
      row: { id: Number(row.id), project_id: row.project_id === null ? null : Number(row.project_id) },
      observation: { anyScanCompleted: Number(row.any_completed) === 1, newestFinishedScanStatus: (row.newest ?? null) as TargetObservation['newestFinishedScanStatus'] },
      backlogVersion: String(row.backlog_version ?? 0),
    };
  }
}
