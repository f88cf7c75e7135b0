import type { Clock } from '../../application/ports/clock';
import { Visibility } from '../../application/identity/visibility';
import { gradeFor, NO_DATA, scoreFromRiskPoints, type ScoredTarget } from '../../domain/scorecards';
import { SEVERITIES } from '../../domain/gate/severity';
import { TARGET_KINDS, type TargetKind } from '../../domain/shared/target-kind';
import type { RemediationWindows } from '../../domain/triage/remediation-deadline';
import { Database } from '../../infrastructure/db/database';
import { scopeToVisible } from '../identity/visibility';
import { TARGET_TABLE } from '../targets/tables';
import { ScanStatusPort, targetKey } from './scan-status';

const DAY_MS = 86_400_000;
/** Above this many targets, overdue is asked for every target and filtered here: one statement instead of many. */
export const FEW = 500;

/** A target the caller sees, with its figures read from the scorecards projection. */
export interface TargetFigures extends ScoredTarget {
  readonly id: number;
  readonly projectId: number | null;
  readonly scanned: boolean;
  readonly openCritical: number;
  readonly openHigh: number;
  readonly openMedium: number;
  readonly openLow: number;
  readonly openKev: number;
  readonly licenseViolations: number;
  /** riskPoints of its open backlog whether or not it was scanned: what a scope's riskPoints add up. */
  readonly backlogRiskPoints: number;
  readonly updatedAt: string | null;
}

/** Overdue counts per target, or their total when only the total is known. */
export type Overdue = { byTarget: ReadonlyMap<string, number> } | { total: number };

/** The remediation windows of the installation settings (remediation_days_*), read at each question. */
export interface RemediationWindowsReader {
  windows(): Promise<RemediationWindows>;
}

/** Projections whose rows the all-targets read depends on (see everyRow); the scan-status port reads scorecard_targets too. */
const CACHED_ON = ['scorecards', 'targets'];

interface EveryRow {
  readonly key: string;
  readonly rows: ReadonlyArray<{ kind: TargetKind; row: FiguresRow }>;
  readonly scanned: ReadonlySet<string>;
}

interface FiguresRow {
  id: number; name: string; project_id: number | null; open_critical: number | null; open_high: number | null; open_medium: number | null;
  open_low: number | null; open_kev: number | null; license_violations: number | null; risk_points: number | null; score: number | null;
  updated_at: string | null;
}

/**
 * The per-target figures every scorecard is made of: the targets the caller sees (their names and
 * projects, from the targets read model's tables) joined with their rows of `scorecard_targets`
 * (never the issues), the scan-status port (scanned or not) and, for overdueCount, the open-issue ages
 * of `scorecard_open_ages` against the remediation windows at the Clock's now.
 */
export class ScorecardFigures {
  private every: EveryRow | null = null;

  constructor(
    private readonly db: Database,
    private readonly scans: ScanStatusPort,
    private readonly remediation: RemediationWindowsReader,
    private readonly clock: Clock,
  ) {}

  /** The targets the caller sees (narrowed by `filter`), each with its scorecard figures. */
  async figures(visibility: Visibility, filter: { kind?: TargetKind; id?: number; projectIds?: readonly number[] } = {}): Promise<TargetFigures[]> {
    if (filter.id === undefined && filter.projectIds === undefined && filter.kind === undefined) {
      const every = await this.everyRow();
      return every.rows.filter(({ kind, row }) => visibility.canSee(kind, row)).map(({ kind, row }) => toFigures(kind, row, every.scanned.has(targetKey(kind, row.id))));
    }
    const perKind = TARGET_KINDS.filter((kind) => !filter.kind || filter.kind === kind).map(async (kind) => {
      let q = this.rowsOf(kind);
      if (filter.id !== undefined) q = q.where(`${TARGET_TABLE[kind]}.id`, filter.id);
      if (filter.projectIds) q = q.whereIn(`${TARGET_TABLE[kind]}.project_id`, filter.projectIds.length ? [...filter.projectIds] : [-1]);
      const rows: FiguresRow[] = await scopeToVisible(visibility, q, kind);
      return rows.map((row) => ({ kind, row }));
    });
    const found = (await Promise.all(perKind)).flat();
    const scanned = await this.scans.scanned(found.map(({ kind, row }) => ({ kind, id: Number(row.id) })));
    return found.map(({ kind, row }) => toFigures(kind, row, scanned.has(targetKey(kind, row.id))));
  }

  /**
   * Every target the caller sees, and the overdue counts over them. When the caller sees everything,
   * overdue is one sum over all ages (no grouping by target), read while the targets are: what keeps
   * GET /scorecards/global to a few milliseconds with thousands of targets.
   */
  async everyTarget(visibility: Visibility): Promise<{ targets: TargetFigures[]; overdue: Overdue }> {
    if (visibility.all && !visibility.restriction) {
      const [targets, total] = await Promise.all([this.figures(visibility), this.overdueTotal()]);
      return { targets, overdue: { total } };
    }
    const targets = await this.figures(visibility);
    return { targets, overdue: { byTarget: await this.overdueByTarget(targets.length <= FEW ? targets : undefined) } };
  }

  /**
   * Counted open issues past their remediation window, per target (`repository:12` -> n), at the Clock's
   * now: first seen before now minus the severity's window (remediation_days_*), the instant itself on time,
   * as isOverdue reads it. The ages are ISO instants of one format, so comparing them as text is exact.
   */
  async overdueByTarget(only?: ReadonlyArray<Pick<ScoredTarget, 'kind' | 'id'>>): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (only && only.length === 0) return out;
    const windows = await this.remediation.windows();
    const now = this.clock.now().getTime();
    const query = () => this.overdueAges(windows, now).groupBy('target_kind', 'target_id').select('target_kind', 'target_id').sum({ n: 'issues' });
    const collect = (rows: unknown[]) => {
      for (const r of rows as Array<{ target_kind: string; target_id: number; n: number | string }>) out.set(targetKey(r.target_kind, r.target_id), Number(r.n));
    };
    if (!only) {
      collect(await query());
      return out;
    }
    for (let i = 0; i < only.length; i += FEW) {
      collect(await query().whereIn(['target_kind', 'target_id'], only.slice(i, i + FEW).map((t) => [t.kind, t.id])));
    }
    return out;
  }

  /**
   * All counted overdue issues: every row of scorecard_open_ages belongs to an existing target (the
   * projection forgets a deleted target's rows), so this is the total over every target.
   */
  private async overdueTotal(): Promise<number> {
    const windows = await this.remediation.windows();
    const row = await this.overdueAges(windows, this.clock.now().getTime()).sum({ n: 'issues' }).first();
    return Number(row?.n ?? 0);
  }

  /** The ages past their severity's window: first seen before now minus the window. */
  private overdueAges(windows: RemediationWindows, now: number) {
    return this.db.knex('scorecard_open_ages')
      .where((w) => { for (const s of SEVERITIES) w.orWhere((x) => { x.where('severity', s).where('first_seen_at', '<', new Date(now - windows[s] * DAY_MS).toISOString()); }); });
  }

  private rowsOf(kind: TargetKind) {
    const table = TARGET_TABLE[kind];
    return this.db.knex(table)
      .leftJoin('scorecard_targets as s', (j) => { j.on('s.target_id', '=', `${table}.id`).andOnVal('s.target_kind', '=', kind); })
      .select(`${table}.id`, `${table}.name`, `${table}.project_id`, 's.open_critical', 's.open_high', 's.open_medium', 's.open_low', 's.open_kev',
        's.license_violations', 's.risk_points', 's.score', 's.updated_at');
  }

  /**
   * Every target's row and the scanned set, kept while the checkpoints of the projections they come
   * from (targets, scorecards) stand still: those rows change only in a projection step, which moves
   * its checkpoint in the same transaction, so an unchanged pair of checkpoints means unchanged rows,
   * on this instance or any other. Reading the checkpoints first makes the rows at least as new as the
   * key. What keeps the dashboards in a few milliseconds with thousands of targets; each caller's view
   * is filtered from it (Visibility.canSee).
   */
  private async everyRow(): Promise<EveryRow> {
    const checkpoints: Array<{ name: string; commit_id: string; position: number }> = await this.db.knex('projection_checkpoints')
      .whereIn('name', CACHED_ON).orderBy('name').select('name', 'commit_id', 'position');
    const key = checkpoints.map((c) => `${c.name}:${c.commit_id}:${c.position}`).join('|');
    if (this.every?.key === key) return this.every;
    const [lists, scanned] = await Promise.all([
      Promise.all(TARGET_KINDS.map(async (kind) => ((await this.rowsOf(kind)) as FiguresRow[]).map((row) => ({ kind, row })))),
      this.scans.scanned(),
    ]);
    this.every = { key, rows: lists.flat(), scanned };
    return this.every;
  }
}

function toFigures(kind: TargetKind, row: FiguresRow, scanned: boolean): TargetFigures {
  const backlogRiskPoints = Number(row.risk_points ?? 0);
  // No row: nothing was ever found on it, so it scores 100 once scanned.
  const storedScore = row.score === null ? scoreFromRiskPoints(0, false) : Number(row.score);
  const scored = scanned ? { score: storedScore, grade: gradeFor(storedScore), riskPoints: backlogRiskPoints } : NO_DATA;
  return {
    kind, id: Number(row.id), name: row.name, projectId: row.project_id === null ? null : Number(row.project_id), scanned, ...scored,
    openCritical: Number(row.open_critical ?? 0), openHigh: Number(row.open_high ?? 0), openMedium: Number(row.open_medium ?? 0),
    openLow: Number(row.open_low ?? 0), openKev: Number(row.open_kev ?? 0), licenseViolations: Number(row.license_violations ?? 0),
    backlogRiskPoints, updatedAt: row.updated_at,
  };
}
