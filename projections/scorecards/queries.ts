import { Principal } from '../../application/identity/principal';
import { VisibilityReader } from '../../application/identity/visibility';
import type { Clock } from '../../application/ports/clock';
import { rankTargets, scoreAggregate, weakestTarget } from '../../domain/scorecards';
import { refuse } from '../../domain/shared/decider';
import { TARGET_NOUN, type TargetKind } from '../../domain/shared/target-kind';
import { Database } from '../../infrastructure/db/database';
import { FEW, ScorecardFigures, TargetFigures } from './figures';
import { ScanStatusPort, targetKey } from './scan-status';
import { scopeScorecard, scoreboardEntry, seesScope, sumBacklog, totals } from './totals';
import { SCORE_FORMULA_CHANGED_ON, trendPoints } from './trends';

/**
 * Scorecards and dashboards (spec 1 §2.9, §4.6), answered from the scorecards projection's per-target
 * figures (figures.ts) over the targets the caller sees (Visibility), the scan-status port (scanned or
 * not, last scan failed) and the overdue ages at the Clock's now.
 */
export class ScorecardQueries {
  constructor(
    private readonly db: Database,
    private readonly visibilities: VisibilityReader,
    private readonly figures: ScorecardFigures,
    private readonly scans: ScanStatusPort,
    private readonly clock: Clock,
  ) {}

  // ---- one target ---------------------------------------------------------------------------

  /** GET /scorecards/repositories/{id}, /scorecards/containers/{id}: 404 alike for unknown and unseen. */
  async target(principal: Principal, kind: TargetKind, id: number) {
    const visibility = await this.visibilities.of(principal);
    const [target] = await this.figures.figures(visibility, { kind, id });
    if (!target) throw refuse.notFound(`No ${TARGET_NOUN[kind]} ${id} is visible to you.`);
    const ref = [{ kind, id }];
    const [overdue, failed] = await Promise.all([this.figures.overdueByTarget(ref), this.scans.lastScanFailed(ref)]);
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
    const { targets, overdue } = await this.figures.everyTarget(await this.visibilities.of(principal));
    const t = totals(targets, overdue);
    return {
      grades: t.grades, weakestTarget: weakestTarget(targets), riskPoints: t.riskPoints, totalTargets: targets.length, observedTargets: t.observed,
      openCriticalCount: t.openCritical, openHighCount: t.openHigh, openKevCount: t.openKev, overdueCount: t.overdue, licenseViolationCount: t.licenseViolations,
    };
  }

  /** GET /dashboard/posture-analytics: every visible target ranked, best first; equal scores: fewer riskPoints first (S1.2.9-21). */
  async postureAnalytics(principal: Principal) {
    const targets = await this.figures.figures(await this.visibilities.of(principal));
    return { targetScoreboard: rankTargets(targets).map((t, i) => ({ rank: i + 1, ...scoreboardEntry(t as TargetFigures) })) };
  }

  /** GET /security/overview: failingCount counts never-scanned targets and those whose last scan failed, each once (S1.4.6-05, -06). */
  async securityOverview(principal: Principal) {
    const [{ targets, overdue }, failed] = await Promise.all([this.figures.everyTarget(await this.visibilities.of(principal)), this.scans.lastScanFailed()]);
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

  /** GET /dashboard/trends: score_formula_changed_on (S1.2.9-22) and one point per day of the last `days`, over the targets the caller sees now. */
  async trends(principal: Principal, days: number) {
    const visible = new Set((await this.figures.figures(await this.visibilities.of(principal))).map((t) => targetKey(t.kind, t.id)));
    const points = await trendPoints(this.db, visible, this.clock.now().getTime(), days);
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
    // `projects` and `solutions` belong to the targets read model (projections/targets): their names only.
    const project: { id: number; name: string; solution_id: number | null } | undefined = await this.db.knex('projects').where({ id }).first();
    const visibility = await this.visibilities.of(principal);
    const targets = project ? await this.figures.figures(visibility, { projectIds: [id] }) : [];
    if (!project || !seesScope(visibility, [id], targets)) throw refuse.notFound(`No project ${id} is visible to you.`);
    const overdue = await this.figures.overdueByTarget(targets);
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
    const targets = projectIds.length ? await this.figures.figures(visibility, { projectIds }) : [];
    if (!solution || !seesScope(visibility, projectIds, targets)) throw refuse.notFound(`No solution ${id} is visible to you.`);
    const overdue = await this.figures.overdueByTarget(targets.length <= FEW ? targets : undefined);
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
}
