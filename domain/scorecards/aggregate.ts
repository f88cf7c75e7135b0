import { gradeFor, type Grade } from './grades';
import { weakestTarget, type ScoredTarget, type WeakestTarget } from './ranking';
import { countsInSecurityFigures, RISK_POINTS, riskPointsOfIssue, type RiskIssue } from './risk-points';
import { MIN_SCORE } from './target-score';

/** A project's or solution's scorecard figures (spec 1 §2.9). */
export interface AggregateScore {
  readonly score: number | null;
  readonly grade: Grade;
  readonly riskPoints: number | null;
  readonly weakestTarget: WeakestTarget | null;
}

/** "Held at the scanned share" (CONVENTIONS.md): round(100 x scanned / visible). Three of four: 75. */
export function scannedShareCap(scanned: number, visible: number): number {
  return Math.round((100 * scanned) / visible);
}

/**
 * targets: every target of the project or solution that the caller sees, scanned or not.
 * scopeRiskPoints: the whole scope's open backlog, each issue and licence once (see scopeRiskPoints),
 * which is not the sum of the targets' riskPoints when targets share issues.
 * With no scanned visible target there is no score, and riskPoints is null with it (S1.2.9-12).
 */
export function scoreAggregate(targets: readonly ScoredTarget[], scopeRiskPoints: number): AggregateScore {
  let scanned = 0;
  let lowest = Infinity;
  for (const target of targets) {
    if (target.score === null) continue;
    scanned++;
    if (target.score < lowest) lowest = target.score;
  }
  if (scanned === 0) return { score: null, grade: 'NO_DATA', riskPoints: null, weakestTarget: null };
  const score = Math.max(MIN_SCORE, Math.min(lowest, scannedShareCap(scanned, targets.length)));
  return { score, grade: gradeFor(score), riskPoints: scopeRiskPoints, weakestTarget: weakestTarget(targets) };
}

/** Keeps the first of each id: an issue or licence seen through several targets counts once. */
export function dedupeById<T extends { readonly id: unknown }>(items: readonly T[]): T[] {
  const seen = new Set<unknown>();
  const unique: T[] = [];
  for (const item of items) {
    if (seen.has(item.id)) continue;
    seen.add(item.id);
    unique.push(item);
  }
  return unique;
}

export type IdentifiedRiskIssue = RiskIssue & { readonly id: unknown };

/** riskPoints of a whole scope (S1.2.9-15), de-duplicating issues and licence violations by id. */
export function scopeRiskPoints(
  issues: readonly IdentifiedRiskIssue[],
  licenceViolations: readonly { readonly id: unknown }[],
): number {
  let points = dedupeById(licenceViolations).length * RISK_POINTS.disallowedLicence;
  for (const issue of dedupeById(issues)) if (countsInSecurityFigures(issue)) points += riskPointsOfIssue(issue);
  return points;
}
