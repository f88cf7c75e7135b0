import { gradeFor } from '../../../domain/scorecards/grades';
import type { ScoredTarget } from '../../../domain/scorecards/ranking';
import type { TargetKind } from '../../../domain/shared/target-kind';

/** A target with a given score (null: never scanned) and riskPoints. */
export function target(id: number, score: number | null, riskPoints: number | null = score === null ? null : 0, kind: TargetKind = 'repository'): ScoredTarget {
  return { kind, id, name: `target-${id}`, score, grade: gradeFor(score), riskPoints };
}
