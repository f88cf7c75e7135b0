import { EXPLOITED_SCORE_CAP, gradeFor, type Grade } from './grades';
import { anyExploited, riskPointsOf, type RiskIssue } from './risk-points';

/** Spec 1 §2.9: score = round(100 x e^(-riskPoints/55)). */
export const SCORE_DECAY_POINTS = 55;
/** A score is never below 1 (S1.2.9-02): 0 would read as "no data". */
export const MIN_SCORE = 1;

export interface TargetScore {
  /** null exactly when riskPoints is null: the target was never scanned (S1.2.9-12). */
  readonly score: number | null;
  readonly grade: Grade;
  readonly riskPoints: number | null;
}

export const NO_DATA: TargetScore = { score: null, grade: 'NO_DATA', riskPoints: null };

export function scoreFromRiskPoints(riskPoints: number, exploited: boolean): number {
  const score = Math.max(MIN_SCORE, Math.round(100 * Math.exp(-riskPoints / SCORE_DECAY_POINTS)));
  return exploited ? Math.min(score, EXPLOITED_SCORE_CAP) : score;
}

export interface TargetScoreInput {
  readonly openIssues: readonly RiskIssue[];
  readonly disallowedLicences: number;
  /** Whether any scan of the target completed. A completed scan adds no bonus (S1.2.9-11). */
  readonly scanned: boolean;
}

/** One repository's or container image's scorecard figures. */
export function scoreTarget(input: TargetScoreInput): TargetScore {
  if (!input.scanned) return NO_DATA;
  const riskPoints = riskPointsOf(input.openIssues, input.disallowedLicences);
  const score = scoreFromRiskPoints(riskPoints, anyExploited(input.openIssues));
  return { score, grade: gradeFor(score), riskPoints };
}
