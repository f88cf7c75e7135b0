import { isOverdue, type RemediationWindows } from '../triage/remediation-deadline';
import { dedupeById, type IdentifiedRiskIssue } from './aggregate';
import { ALL_GRADES, type Grade } from './grades';
import { weakestTarget, type ScoredTarget, type WeakestTarget } from './ranking';
import { countsInSecurityFigures, RISK_POINTS, riskPointsOfIssue } from './risk-points';

export type GlobalIssue = IdentifiedRiskIssue & { readonly firstSeenAt: string };

export interface GlobalScorecardInput {
  /** Every target the caller sees. */
  readonly targets: readonly ScoredTarget[];
  /** The open issues of those targets; duplicates by id are counted once. */
  readonly issues: readonly GlobalIssue[];
  /** Disallowed-licence findings of those targets; duplicates by id are counted once. */
  readonly licenceViolations: readonly { readonly id: unknown }[];
  /** For overdueCount; from the Clock port. */
  readonly now: Date;
  readonly remediationWindows?: RemediationWindows;
}

/** GET /scorecards/global: exactly the fields of spec 1 §2.9, and no single score or grade (S1.2.9-20). */
export interface GlobalScorecard {
  readonly grades: readonly { readonly grade: Grade; readonly count: number }[];
  readonly weakestTarget: WeakestTarget | null;
  readonly riskPoints: number;
  readonly totalTargets: number;
  readonly observedTargets: number;
  readonly openCriticalCount: number;
  readonly openHighCount: number;
  readonly openKevCount: number;
  readonly overdueCount: number;
  readonly licenseViolationCount: number;
}

/**
 * One pass over the de-duplicated issues gives riskPoints (as scopeRiskPoints would) and the counts.
 * Counts follow the issue's severity, KEV or not (a critical KEV issue is one critical and one KEV);
 * only riskPoints counts a KEV issue in its class alone. Overdue leaves out will_not_fix: the
 * exception's review date, not the remediation window, says when it is looked at again.
 */
export function globalScorecard(input: GlobalScorecardInput): GlobalScorecard {
  const counts = new Map<Grade, number>(ALL_GRADES.map((grade) => [grade, 0]));
  let observedTargets = 0;
  for (const target of input.targets) {
    counts.set(target.grade, (counts.get(target.grade) ?? 0) + 1);
    if (target.score !== null) observedTargets++;
  }

  const licenseViolationCount = dedupeById(input.licenceViolations).length;
  let riskPoints = licenseViolationCount * RISK_POINTS.disallowedLicence;
  let openCriticalCount = 0;
  let openHighCount = 0;
  let openKevCount = 0;
  let overdueCount = 0;
  for (const issue of dedupeById(input.issues)) {
    if (!countsInSecurityFigures(issue)) continue;
    riskPoints += riskPointsOfIssue(issue);
    if (issue.severity === 'critical') openCriticalCount++;
    if (issue.severity === 'high') openHighCount++;
    if (issue.kev) openKevCount++;
    if (issue.triageStatus !== 'will_not_fix' && isOverdue(issue.firstSeenAt, issue.severity, input.now, input.remediationWindows)) {
      overdueCount++;
    }
  }

  return {
    grades: ALL_GRADES.map((grade) => ({ grade, count: counts.get(grade) ?? 0 })),
    weakestTarget: weakestTarget(input.targets),
    riskPoints,
    totalTargets: input.targets.length,
    observedTargets,
    openCriticalCount,
    openHighCount,
    openKevCount,
    overdueCount,
    licenseViolationCount,
  };
}
