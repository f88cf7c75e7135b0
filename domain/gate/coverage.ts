import type { TargetViolation } from './verdict';

/** Line counts of the target's newest coverage import (spec 1 §2.6). */
export interface LineCoverage {
  readonly linesCovered: number;
  readonly linesTotal: number;
}

/**
 * The coverage rule, active only when the policy names a minimum. Without a coverage import there is
 * nothing showing the minimum is met, so the gate fails rather than assume it.
 */
export function coverageViolation(minimum: number | null, coverage: LineCoverage | null | undefined): TargetViolation | null {
  if (minimum === null) return null;
  if (!coverage || coverage.linesTotal <= 0) {
    return { rule: 'coverage', reason: `No line coverage has been imported; the policy requires at least ${minimum}%` };
  }
  const percent = (100 * coverage.linesCovered) / coverage.linesTotal;
  if (percent >= minimum) return null;
  return { rule: 'coverage', reason: `Line coverage ${percent.toFixed(1)}% is below the policy minimum of ${minimum}%` };
}
