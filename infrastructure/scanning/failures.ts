import { ScanFailure } from '../../application/ports/scanning';

/** Longest reason kept on a failed scan (spec 1 §8.2: failure text cut to 1,000 characters). */
export const MAX_REASON_LENGTH = 1000;

/** A ScanFailure whose reason (shown on the scan and audited) is at most 1,000 characters. */
export function scanFailure(kind: 'permanent' | 'transient', reason: string): ScanFailure {
  return new ScanFailure(kind, reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH - 1)}…` : reason);
}
