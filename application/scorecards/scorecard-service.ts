import { scopeToVisible } from '../../projections/identity/visibility';
import { randomBytes } from 'node:crypto';
import { ALL_GRADES, gradeFor, NO_DATA, rankTargets, renderBadgeSvg, scannedShareCap, scoreAggregate, scoreFromRiskPoints, weakestTarget, type Grade, type ScoredTarget, type WeakestTarget } from '../../domain/scorecards';
import { type TargetKind } from '../../domain/shared/target-kind';
import { SEVERITIES } from '../../domain/gate/severity';
import type { RemediationWindows } from '../../domain/triage/remediation-deadline';
import { refuse } from '../../domain/shared/decider';
import { sha256Hex } from '../../domain/shared/digest';
import { Database } from '../../infrastructure/db/database';
import { CommandHandler, RequestContext } from '../command-handler';
import { Principal } from '../identity/principal';
import { Visibility, VisibilityReader } from '../identity/visibility';
import { TARGET_TABLE } from '../../projections/targets/tables';
import { TARGET_NOUN } from '../../domain/shared/target-kind';
import { Clock } from '../ports/clock';
import { IdGenerator } from '../ports/ids';
import { SettingsService } from '../settings/settings-service';
import { remediationWindowsOf } from '../triage/remediation-windows';
import { badgeDecider } from './badge-tokens';
import { ScanStatusPort, TargetRef, targetKey } from './scan-status';
import { streams } from '../../domain/shared/streams';

const KINDS: readonly TargetKind[] = ['repository', 'container'];
const DAY_MS = 86_400_000;
/** Above this many targets, overdue is asked for every target and filtered here: one statement instead of many. */
const FEW = 500;

/**
 * The day this installation's scorecard formula changed (GET /dashboard/trends, S1.2.9-22). Vigil has
 * computed every score with the formula of spec 1 §2.9 since its first release, so trend points never
 * straddle a change: null. A future change of formula sets the date it shipped.
 */
export const SCORE_FORMULA_CHANGED_ON: string | null = null;

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
 * Scorecards, dashboards and badges (spec 1 §2.9, §4.6). Every answer reads the per-target rows of the
 * scorecards projection (never the issues), the targets the caller sees (Visibility), the scan-status
 * port (scanned or not, last scan failed) and, for overdueCount, the open-issue ages against the
 * remediation windows of the settings at the Clock's now.
 */
export class ScorecardService {
  private every: EveryRow | null = null;

  constructor(
    private readonly db: Database,
    private readonly visibilities: VisibilityReader,
    private readonly commands: CommandHandler,
    private readonly ids: IdGenerator,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly scans: ScanStatusPort,
  ) {}

  // ---- one target ---------------------------------------------------------------------------

  /** GET /scorecards/repositories/{id}, /scorecards/containers/{id}: 404 alike for unknown and unseen. */
  async target(principal: Principal, kind: TargetKind, id: number) {
    const visibility = await this.visibilities.of(principal);
    const [target] = await this.figures(visibility, { kind, id });
    if (!target) throw refuse.notFound(`No ${TARGET_NOUN[kind]} ${id} is visible to you.`);
    const ref = [{ kind, id }];
    const [overdue, failed] = await Promise.all([this.overdueByTarget(ref), this.scans.lastScanFailed(ref)]);
    return {
      kind, id, name: target.name, projectId: target.projectId, scanned: target.scanned, lastScanFailed: failed.has(targetKey(kind, id)),
      score: target.score, grade: target.grade, riskPoints: target.riskPoints,
      openCriticalCount: target.openCritical, openHighCount: target.openHigh, openMediumCount: target.openMedium, openLowCount: target.openLow,
      openKevCount: target.openKev, overdueCount: overdue.get(targetKey(kind, id)) ?? 0, licenseViolationCount: target.licenseViolations,
      updatedAt: target.updatedAt,
    };
  }

  // ---- every target the caller sees ---------------------------------------------------------

  /** GET /scorecards/global: exactly the fields of spec 1 §2.9, no single score or grade (S1.2.9-17 to -20). */
  async global(principal: Principal) {
    const { targets, overdue } = await this.everyTarget(await this.visibilities.of(principal));
    const t = totals(targets, overdue);
    return {
      grades: t.grades, weakestTarget: weakestTarget(targets), riskPoints: t.riskPoints, totalTargets: targets.length, observedTargets: t.observed,
      openCriticalCount: t.openCritical, openHighCount: t.openHigh, openKevCount: t.openKev, overdueCount: t.overdue, licenseViolationCount: t.licenseViolations,
    };
  }

  /** GET /dashboard/posture-analytics: every visible target ranked, best first; equal scores: fewer riskPoints first (S1.2.9-21). */
  async postureAnalytics(principal: Principal) {
    const targets = await this.figures(await this.visibilities.of(principal));
    return { targetScoreboard: rankTargets(targets).map((t, i) => ({ rank: i + 1, ...scoreboardEntry(t as TargetFigures) })) };
  }

  /** GET /security/overview: failingCount counts never-scanned targets and those whose last scan failed, each once (S1.4.6-05, -06). */
  async securityOverview(principal: Principal) {
    const [{ targets, overdue }, failed] = await Promise.all([this.everyTarget(await this.visibilities.of(principal)), this.scans.lastScanFailed()]);
    const t = totals(targets, overdue);
    let neverScanned = 0;
    let lastScanFailed = 0;
    let failing = 0;
    for (const target of targets) {
      const hasFailed = failed.has(targetKey(target.kind, target.id));
      if (!target.scanned) neverScanned++;
      if (hasFailed) lastScanFailed++;
      if (!target.scanned || hasFailed) failing++;
    }
    return {
      totalTargets: targets.length, observedTargets: t.observed, neverScannedCount: neverScanned, lastScanFailedCount: lastScanFailed, failingCount: failing,
      grades: t.grades, riskPoints: t.riskPoints, openCriticalCount: t.openCritical, openHighCount: t.openHigh, openKevCount: t.openKev,
      overdueCount: t.overdue, licenseViolationCount: t.licenseViolations,
    };
  }

  /**
   * GET /dashboard/trends: score_formula_changed_on (S1.2.9-22) and one point per day of the last `days`
   * (today, by the Clock, last), summed over the targets the caller sees now. A target's figures on a
   * day are those it ended the latest day it changed on, on or before that day: the trend points of
   * its earlier days, its current row for its last one. `observedTargets` and `lowestScore` read the
   * projection's record of scanning, the same as the scan-status port.
   */
  async trends(principal: Principal, days: number) {
    const visible = new Set((await this.figures(await this.visibilities.of(principal))).map((t) => targetKey(t.kind, t.id)));
    const now = this.clock.now().getTime();
    const today = dayOf(now);
    const first = dayOf(now - (days - 1) * DAY_MS);
    const knex = this.db.knex;
    const latestBefore = knex('scorecard_trend_points').where('day', '<', first).groupBy('target_kind', 'target_id')
      .select('target_kind', 'target_id').max({ day: 'day' }).as('m');
    const [carried, within, currentRows] = await Promise.all([
      knex('scorecard_trend_points as p')
        .join(latestBefore, (j) => { j.on('p.target_kind', '=', 'm.target_kind').andOn('p.target_id', '=', 'm.target_id').andOn('p.day', '=', 'm.day'); })
        .select('p.*') as Promise<TrendRow[]>,
      knex('scorecard_trend_points').where('day', '>=', first).where('day', '<=', today).select('*') as Promise<TrendRow[]>,
      knex('scorecard_targets').select('target_kind', 'target_id', 'updated_at', 'scanned', 'risk_points', 'score', 'open_critical', 'open_high', 'open_kev') as Promise<Array<TrendRow & { updated_at: string }>>,
    ]);
    // Oldest first; on one day a current row comes after a point (it is the later state).
    const rows = [
      ...carried.map((r) => ({ r, day: r.day!, current: 0 })), ...within.map((r) => ({ r, day: r.day!, current: 0 })),
      ...currentRows.map((r) => ({ r, day: r.updated_at.slice(0, 10), current: 1 })).filter((x) => x.day <= today),
    ].filter((x) => visible.has(targetKey(x.r.target_kind, x.r.target_id)))
      .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.current - b.current));
    const standing = new Map<string, TrendRow>();
    const points = [];
    let next = 0;
    for (let d = 0; d < days; d++) {
      const date = dayOf(Date.parse(`${first}T00:00:00.000Z`) + d * DAY_MS);
      for (; next < rows.length && rows[next].day <= date; next++) standing.set(targetKey(rows[next].r.target_kind, rows[next].r.target_id), rows[next].r);
      let riskPoints = 0; let critical = 0; let high = 0; let kev = 0; let observed = 0; let lowest: number | null = null;
      for (const r of standing.values()) {
        riskPoints += Number(r.risk_points); critical += Number(r.open_critical); high += Number(r.open_high); kev += Number(r.open_kev);
        if (r.scanned) {
          observed++;
          lowest = lowest === null ? Number(r.score) : Math.min(lowest, Number(r.score));
        }
      }
      points.push({ date, riskPoints, openCriticalCount: critical, openHighCount: high, openKevCount: kev, observedTargets: observed, lowestScore: lowest });
    }
    return { score_formula_changed_on: SCORE_FORMULA_CHANGED_ON, days, points };
  }

  // ---- projects and solutions ---------------------------------------------------------------

  /**
   * GET /projects/{id}/compliance. The score is the lowest score among the scanned targets the caller
   * sees, held at the scanned share (CONVENTIONS.md); riskPoints the whole open backlog of the targets
   * the caller sees in it, each issue once (an issue belongs to one target). The project is seen by
   * whoever is granted it (or is an administrator) and by whoever sees one of its targets.
   */
  async projectCompliance(principal: Principal, id: number) {
    const project: { id: number; name: string; solution_id: number | null } | undefined = await this.db.knex('projects').where({ id }).first();
    const visibility = await this.visibilities.of(principal);
    const targets = project ? await this.figures(visibility, { projectIds: [id] }) : [];
    if (!project || !seesScope(visibility, [id], targets)) throw refuse.notFound(`No project ${id} is visible to you.`);
    const overdue = await this.overdueByTarget(targets);
    return {
      kind: 'project' as const, id, name: project.name, solutionId: project.solution_id === null ? null : Number(project.solution_id),
      ...scopeScorecard(targets, overdue),
    };
  }

  /** GET /solutions/{id}/compliance: as a project's, over the targets of all its projects, plus each project's own figures. */
  async solutionCompliance(principal: Principal, id: number) {
    const solution: { id: number; name: string } | undefined = await this.db.knex('solutions').where({ id }).first();
    const projects: Array<{ id: number; name: string }> = solution ? await this.db.knex('projects').where({ solution_id: id }).orderBy('id').select('id', 'name') : [];
    const projectIds = projects.map((p) => Number(p.id));
    const visibility = await this.visibilities.of(principal);
    const targets = projectIds.length ? await this.figures(visibility, { projectIds }) : [];
    if (!solution || !seesScope(visibility, projectIds, targets)) throw refuse.notFound(`No solution ${id} is visible to you.`);
    const overdue = await this.overdueByTarget(targets.length <= FEW ? targets : undefined);
    const perProject = projects
      .map((p) => ({ project: p, targets: targets.filter((t) => t.projectId === Number(p.id)) }))
      .filter(({ project: p, targets: ts }) => seesScope(visibility, [Number(p.id)], ts))
      .map(({ project: p, targets: ts }) => {
        const aggregate = scoreAggregate(ts, sumBacklog(ts));
        return {
          id: Number(p.id), name: p.name, score: aggregate.score, grade: aggregate.grade, riskPoints: aggregate.riskPoints,
          weakestTarget: aggregate.weakestTarget, totalTargets: ts.length, observedTargets: ts.filter((t) => t.scanned).length,
        };
      });
    return { kind: 'solution' as const, id, name: solution.name, ...scopeScorecard(targets, overdue), projects: perProject };
  }

  // ---- badges -------------------------------------------------------------------------------

  /**
   * POST /scorecards/badges: a new public badge token for one target (administrators). The token is in
   * this answer only; Vigil keeps its SHA-256. Anyone holding the token can read the target's letter.
   */
  async issueBadge(ctx: RequestContext, body: { repositoryId?: number; containerId?: number }) {
    const named = ([['repository', body.repositoryId], ['container', body.containerId]] as const).filter(([, v]) => v !== undefined);
    if (named.length !== 1) throw refuse.invalid('Name exactly one of repositoryId and containerId.');
    const [kind, targetId] = named[0] as [TargetKind, number];
    if (!(await this.db.knex(TARGET_TABLE[kind]).where({ id: targetId }).first())) throw refuse.notFound(`No ${TARGET_NOUN[kind]} ${targetId}.`);
    const token = `vgl_b_${randomBytes(32).toString('base64url')}`;
    const id = await this.ids.next('scorecard_badge');
    const at = ctx.now.toISOString();
    await this.commands.execute(streams.scorecardBadge(id), badgeDecider, { type: 'IssueBadge', id, targetKind: kind, targetId, tokenHash: sha256Hex(token), actor: ctx.actor, at }, ctx);
    return { id, token, targetKind: kind, targetId, path: `/api/v1/scorecards/badges/${token}.svg`, issuedAt: at };
  }

  /** DELETE /scorecards/badges/{id}: the image answers 404 from now on; revoking twice changes nothing. */
  async revokeBadge(ctx: RequestContext, id: number): Promise<void> {
    await this.commands.execute(streams.scorecardBadge(id), badgeDecider, { type: 'RevokeBadge', id, actor: ctx.actor, at: ctx.now.toISOString() }, ctx);
  }

  /** GET /scorecards/badges: every badge token issued, without the token. */
  async listBadges() {
    const rows: Array<{ id: number; target_kind: TargetKind; target_id: number; issued_by: number | null; issued_at: string; revoked_at: string | null }> =
      await this.db.knex('scorecard_badges').orderBy('id').select('id', 'target_kind', 'target_id', 'issued_by', 'issued_at', 'revoked_at');
    return rows.map((r) => ({
      id: Number(r.id), targetKind: r.target_kind, targetId: Number(r.target_id), issuedBy: r.issued_by === null ? null : Number(r.issued_by),
      issuedAt: r.issued_at, revokedAt: r.revoked_at,
    }));
  }

  /** GET /scorecards/badges/{token}.svg (public): the letter only (S1.2.9-16). Unknown, revoked or orphaned tokens: 404. */
  async badgeSvg(token: string): Promise<string> {
    const unknown = () => refuse.notFound('No such badge.');
    if (!/^vgl_b_[A-Za-z0-9_-]{43}$/.test(token)) throw unknown();
    const badge: { target_kind: TargetKind; target_id: number } | undefined = await this.db.knex('scorecard_badges')
      .where({ token_hash: sha256Hex(token) }).whereNull('revoked_at').first('target_kind', 'target_id');
    if (!badge || !(badge.target_kind in TARGET_TABLE)) throw unknown();
    const everyone = new Visibility(true, new Set(), new Set(), new Set(), null);
    const [target] = await this.figures(everyone, { kind: badge.target_kind, id: Number(badge.target_id) });
    if (!target) throw unknown();
    return renderBadgeSvg(target.grade);
  }

  // ---- reading the projection ---------------------------------------------------------------

  /**
   * Every target the caller sees, and the overdue counts over them. When the caller sees everything,
   * overdue is one sum over all ages (no grouping by target), read while the targets are: what keeps
   * GET /scorecards/global to a few milliseconds with thousands of targets.
   */
  private async everyTarget(visibility: Visibility): Promise<{ targets: TargetFigures[]; overdue: Overdue }> {
    if (visibility.all && !visibility.restriction) {
      const [targets, total] = await Promise.all([this.figures(visibility), this.overdueTotal()]);
      return { targets, overdue: { total } };
    }
    const targets = await this.figures(visibility);
    return { targets, overdue: { byTarget: await this.overdueByTarget(targets.length <= FEW ? targets : undefined) } };
  }

  /** The targets the caller sees (narrowed by `filter`), each with its scorecard figures. */
  private async figures(visibility: Visibility, filter: { kind?: TargetKind; id?: number; projectIds?: readonly number[] } = {}): Promise<TargetFigures[]> {
    if (filter.id === undefined && filter.projectIds === undefined && filter.kind === undefined) {
      const every = await this.everyRow();
      return every.rows.filter(({ kind, row }) => visibility.canSee(kind, row)).map(({ kind, row }) => toFigures(kind, row, every.scanned.has(targetKey(kind, row.id))));
    }
    const perKind = KINDS.filter((kind) => !filter.kind || filter.kind === kind).map(async (kind) => {
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
      Promise.all(KINDS.map(async (kind) => ((await this.rowsOf(kind)) as FiguresRow[]).map((row) => ({ kind, row })))),
      this.scans.scanned(),
    ]);
    this.every = { key, rows: lists.flat(), scanned };
    return this.every;
  }

  /**
   * Counted open issues past their remediation window, per target (`repository:12` -> n), at the Clock's
   * now: first seen before now minus the severity's window (remediation_days_*), the instant itself on time,
   * as isOverdue reads it. The ages are ISO instants of one format, so comparing them as text is exact.
   */
  private async overdueByTarget(only?: readonly TargetRef[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (only && only.length === 0) return out;
    const windows = await this.windows();
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
    const windows = await this.windows();
    const row = await this.overdueAges(windows, this.clock.now().getTime()).sum({ n: 'issues' }).first();
    return Number(row?.n ?? 0);
  }

  /** The ages past their severity's window: first seen before now minus the window. */
  private overdueAges(windows: RemediationWindows, now: number) {
    return this.db.knex('scorecard_open_ages')
      .where((w) => { for (const s of SEVERITIES) w.orWhere((x) => { x.where('severity', s).where('first_seen_at', '<', new Date(now - windows[s] * DAY_MS).toISOString()); }); });
  }

  private async windows(): Promise<RemediationWindows> {
    return remediationWindowsOf(await this.settings.all());
  }
}

interface TrendRow {
  target_kind: string; target_id: number; day?: string; scanned: boolean | number; risk_points: number; score: number;
  open_critical: number; open_high: number; open_kev: number;
}

function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
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

function sumBacklog(targets: readonly TargetFigures[]): number {
  return targets.reduce((sum, t) => sum + t.backlogRiskPoints, 0);
}

/** Overdue counts per target, or their total when only the total is known. */
type Overdue = { byTarget: ReadonlyMap<string, number> } | { total: number };

/** Sums over targets; riskPoints and the counts read every target's open backlog, scanned or not. */
function totals(targets: readonly TargetFigures[], overdue: Overdue | ReadonlyMap<string, number>) {
  const byTarget = overdue instanceof Map ? overdue : 'byTarget' in overdue ? overdue.byTarget : null;
  const counts = new Map<Grade, number>(ALL_GRADES.map((g) => [g, 0]));
  const t = { riskPoints: 0, observed: 0, openCritical: 0, openHigh: 0, openKev: 0, overdue: 0, licenseViolations: 0 };
  for (const target of targets) {
    counts.set(target.grade, (counts.get(target.grade) ?? 0) + 1);
    if (target.scanned) t.observed++;
    t.riskPoints += target.backlogRiskPoints;
    t.openCritical += target.openCritical;
    t.openHigh += target.openHigh;
    t.openKev += target.openKev;
    t.licenseViolations += target.licenseViolations;
    if (byTarget) t.overdue += byTarget.get(targetKey(target.kind, target.id)) ?? 0;
  }
  if (!byTarget) t.overdue = (overdue as { total: number }).total;
  return { ...t, grades: ALL_GRADES.map((grade) => ({ grade, count: counts.get(grade) ?? 0 })) };
}

function scoreboardEntry(t: TargetFigures) {
  return {
    kind: t.kind, id: t.id, name: t.name, projectId: t.projectId, score: t.score, grade: t.grade, riskPoints: t.riskPoints,
    openCriticalCount: t.openCritical, openHighCount: t.openHigh, openKevCount: t.openKev,
  };
}

/** A project's or solution's scorecard over the targets the caller sees in it. */
function scopeScorecard(targets: readonly TargetFigures[], overdue: ReadonlyMap<string, number>) {
  const aggregate = scoreAggregate(targets, sumBacklog(targets));
  const t = totals(targets, overdue);
  const weakest: WeakestTarget | null = aggregate.weakestTarget;
  return {
    score: aggregate.score, grade: aggregate.grade, riskPoints: aggregate.riskPoints, weakestTarget: weakest,
    totalTargets: targets.length, observedTargets: t.observed,
    /** The "held at" value: round(100 x scanned / visible targets); null without targets. */
    scannedShare: targets.length ? scannedShareCap(t.observed, targets.length) : null,
    grades: t.grades, openCriticalCount: t.openCritical, openHighCount: t.openHigh, openKevCount: t.openKev,
    overdueCount: t.overdue, licenseViolationCount: t.licenseViolations,
    targets: rankTargets(targets).map((x) => scoreboardEntry(x as TargetFigures)),
  };
}

/**
 * Whether the caller sees a project or solution: an unrestricted caller granted one of its projects
 * (administrators: all), or anyone who sees one of its targets. A key restricted to a target sees a
 * scope only through that target.
 */
function seesScope(visibility: Visibility, projectIds: readonly number[], visibleTargets: readonly TargetFigures[]): boolean {
  if (visibleTargets.length > 0) return true;
  if (visibility.restriction) return false;
  return visibility.all || projectIds.some((id) => visibility.canSeeProject(id));
}
