import type { TargetViolation } from './verdict';

/**
 * What the scan history says about the target. Pending and running scans are not "finished":
 * they never count as an examination (S1.7-33), so the caller leaves them out of both members.
 */
export interface TargetObservation {
  readonly newestFinishedScanStatus: 'completed' | 'failed' | null;
  readonly anyScanCompleted: boolean;
}

/** S1.7-30, -31: a target nobody has examined, or whose last examination failed, cannot pass. */
export function observationViolation(observation: TargetObservation): TargetViolation | null {
  if (!observation.anyScanCompleted) return { rule: 'observation', reason: 'No scan of the target has completed' };
  if (observation.newestFinishedScanStatus === 'failed') {
    return { rule: 'observation', reason: 'The newest finished scan of the target failed' };
  }
  return null;
}
