import type { TargetKind } from '../shared/target-kind';
import type { Grade } from './grades';
import type { TargetScore } from './target-score';


/**
 * A target the caller sees, with its own scorecard figures (from scoreTarget). "Scanned" is read from
 * score !== null rather than kept as a second flag that could disagree with it.
 */
export type ScoredTarget = TargetScore & {
  readonly kind: TargetKind;
  readonly id: number | string;
  readonly name: string;
};

/** weakestTarget of spec 1 §2.9: always a scanned target, so its numbers are present. */
export interface WeakestTarget {
  readonly kind: TargetKind;
  readonly id: number | string;
  readonly name: string;
  readonly score: number;
  readonly grade: Grade;
  readonly riskPoints: number;
}

/**
 * Ranking order, best first: scanned before never scanned, higher score first, and on equal scores
 * fewer riskPoints first (S1.2.9-21; equal scores are common under the floor and the exploited cap).
 * Remaining ties fall to name, kind and id so that every reader sees the same order.
 */
export function compareRanking(a: ScoredTarget, b: ScoredTarget): number {
  if (a.score === null || b.score === null) return a.score === b.score ? byIdentity(a, b) : a.score === null ? 1 : -1;
  return b.score - a.score || (a.riskPoints ?? 0) - (b.riskPoints ?? 0) || byIdentity(a, b);
}

function byIdentity(a: ScoredTarget, b: ScoredTarget): number {
  return a.name.localeCompare(b.name) || a.kind.localeCompare(b.kind) || String(a.id).localeCompare(String(b.id), undefined, { numeric: true });
}

export function rankTargets(targets: readonly ScoredTarget[]): ScoredTarget[] {
  return [...targets].sort(compareRanking);
}

/** The scanned target that ranks last (lowest score; on a tie, more riskPoints), or null. One pass. */
export function weakestTarget(targets: readonly ScoredTarget[]): WeakestTarget | null {
  let weakest: ScoredTarget | null = null;
  for (const target of targets) {
    if (target.score === null || target.riskPoints === null) continue;
    if (weakest === null || compareRanking(target, weakest) > 0) weakest = target;
  }
  if (weakest === null || weakest.score === null || weakest.riskPoints === null) return null;
  const { kind, id, name, score, grade, riskPoints } = weakest;
  return { kind, id, name, score, grade, riskPoints };
}
