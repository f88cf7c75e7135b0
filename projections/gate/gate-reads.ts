import type { GateReads, RepositoryRef, TargetState } from '../../application/gate/ports';
import type { GateIssue, GatePolicy, LineCoverage } from '../../domain/gate';
import type { TargetObservation } from '../../domain/gate/observation';
import type { TargetKind } from '../../domain/shared/target-kind';
import { Database } from '../../infrastructure/db/database';
import { preparedRows } from '../../infrastructure/db/prepared';
import { TARGET_TABLE } from '../targets/tables';
import { SqlBacklogVersion } from './backlog-version';
import { candidateIssues } from './candidate-issues';

/**
 * The gate's reads (the GateReads port). They read other contexts' read models (targets, scans,
 * issues, coverage imports) as the gate's own narrow statements: a gate call is on every CI
 * pipeline's path and each round trip costs (ADR 0008).
 */
export class SqlGateReads implements GateReads {
  private readonly text: Record<TargetKind, string>;

  constructor(private readonly db: Database, private readonly version: SqlBacklogVersion) {
    const statement = (kind: TargetKind) => `SELECT t.id, t.project_id,
        (SELECT s.status FROM scans s WHERE s.target_kind = '${kind}' AND s.target_id = t.id AND s.status IN ('completed', 'failed')
          ORDER BY CASE WHEN s.finished_at IS NULL THEN 1 ELSE 0 END, s.finished_at DESC, s.id DESC LIMIT 1) AS newest,
        CASE WHEN EXISTS (SELECT 1 FROM scans s WHERE s.target_kind = '${kind}' AND s.target_id = t.id AND s.status = 'completed') THEN 1 ELSE 0 END AS any_completed,
        ${version.sql} AS backlog_version
      FROM ${TARGET_TABLE[kind]} t WHERE t.id = ?`;
    this.text = { repository: statement('repository'), container: statement('container') };
  }

  /**
   * The gate's first read in one statement: the target's row, the scan observation (spec 1 §7,
   * S1.7-30..33: has a scan completed, how did the newest finished one end; pending and running
   * scans never count) and the backlog version the verdict cache keys on. These three were three
   * statements.
   */
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

  candidateIssues(kind: TargetKind, id: number, policy: GatePolicy): Promise<readonly GateIssue[]> {
    return candidateIssues(this.db, kind, id, policy);
  }

  async lineCoverage(repositoryId: number): Promise<LineCoverage | null> {
    const row = await this.db.knex('coverage_imports').where({ repository_id: repositoryId }).orderBy('id', 'desc').select('lines_covered', 'lines_total').first();
    return row ? { linesCovered: Number(row.lines_covered), linesTotal: Number(row.lines_total) } : null;
  }

  async repositoryByKey(uniquenessKey: string): Promise<RepositoryRef | null> {
    const row: RepositoryRow | undefined = await this.db.knex('repositories').where({ uniqueness_key: uniquenessKey }).select('id', 'project_id', 'sub_path').first();
    return row ? repositoryRef(row) : null;
  }

  async repositoriesOf(identity: string, branch: string): Promise<RepositoryRef[]> {
    const rows: RepositoryRow[] = await this.db.knex('repositories').where({ identity, branch }).select('id', 'project_id', 'sub_path').orderBy('id');
    return rows.map(repositoryRef);
  }
}

type RepositoryRow = { id: number; project_id: number | null; sub_path: string };

const repositoryRef = (r: RepositoryRow): RepositoryRef => ({ id: Number(r.id), projectId: r.project_id === null ? null : Number(r.project_id), subPath: r.sub_path });
