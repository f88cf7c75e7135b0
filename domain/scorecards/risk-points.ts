import { isImportedOrPlugin, type IssueType } from '../gate/issue-types';
import type { Severity } from '../gate/severity';
import type { TriageStatus } from '../triage/status';

/**
 * Spec 1 §2.9: riskPoints per open issue by class, and per disallowed licence. A KEV-listed
 * (actively exploited) issue counts in that class only: a critical KEV issue adds 25, not 35.
 */
export const RISK_POINTS = {
  kev: 25,
  critical: 10,
  high: 4,
  medium: 0.5,
  low: 0.125,
  disallowedLicence: 4,
} as const;

/** An open issue as the score reads it. type and triageStatus are optional so a caller may pre-filter. */
export interface RiskIssue {
  readonly severity: Severity;
  readonly kev: boolean;
  readonly type?: IssueType;
  readonly triageStatus?: TriageStatus;
}

/**
 * Which open issues the security figures (riskPoints, open critical/high/KEV counts, overdue) count:
 * - never imported or plugin issues (S1.2.3-17);
 * - not issues triaged not_affected or fixed: VEX reads them as not affected and fixed, so a score
 *   that kept them would punish a correct triage. will_not_fix stays counted: VEX reads it as exposed,
 *   an accepted risk is still a risk. Unsettled and pending issues count.
 */
export function countsInSecurityFigures(issue: RiskIssue): boolean {
  if (issue.type !== undefined && isImportedOrPlugin(issue.type)) return false;
  return issue.triageStatus !== 'not_affected' && issue.triageStatus !== 'fixed';
}

export function riskPointsOfIssue(issue: RiskIssue): number {
  return issue.kev ? RISK_POINTS.kev : RISK_POINTS[issue.severity];
}

/** Sums are exact: every weight is a multiple of 1/8, which binary floating point holds exactly. */
export function riskPointsOf(issues: readonly RiskIssue[], disallowedLicences: number): number {
  let points = disallowedLicences * RISK_POINTS.disallowedLicence;
  for (const issue of issues) if (countsInSecurityFigures(issue)) points += riskPointsOfIssue(issue);
  return points;
}

/** True when some counted open issue is actively exploited: the score is then capped. */
export function anyExploited(issues: readonly RiskIssue[]): boolean {
  return issues.some((issue) => issue.kev && countsInSecurityFigures(issue));
}
