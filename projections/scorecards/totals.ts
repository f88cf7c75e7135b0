import { Visibility } from '../../application/identity/visibility';
import { ALL_GRADES, rankTargets, scannedShareCap, scoreAggregate, type Grade, type WeakestTarget } from '../../domain/scorecards';
import type { Overdue, TargetFigures } from './figures';
import { targetKey } from './scan-status';

/** How the scorecards' answers add up their targets' figures (pure). */

export function sumBacklog(targets: readonly TargetFigures[]): number {
  return targets.reduce((sum, t) => sum + t.backlogRiskPoints, 0);
}

/** Sums over targets; riskPoints and the counts read every target's open backlog, scanned or not. */
export function totals(targets: readonly TargetFigures[], overdue: Overdue | ReadonlyMap<string, number>) {
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

export function scoreboardEntry(t: TargetFigures) {
  return {
    kind: t.kind, id: t.id, name: t.name, projectId: t.projectId, score: t.score, grade: t.grade, riskPoints: t.riskPoints,
    openCriticalCount: t.openCritical, openHighCount: t.openHigh, openKevCount: t.openKev,
  };
}

/** A project's or solution's scorecard over the targets the caller sees in it. */
export function scopeScorecard(targets: readonly TargetFigures[], overdue: ReadonlyMap<string, number>) {
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
export function seesScope(visibility: Visibility, projectIds: readonly number[], visibleTargets: readonly TargetFigures[]): boolean {
  if (visibleTargets.length > 0) return true;
  if (visibility.restriction) return false;
  return visibility.all || projectIds.some((id) => visibility.canSeeProject(id));
}
