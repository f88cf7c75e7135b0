import type { Severity } from '../gate/severity';
import { addDays } from './review-date';

export type RemediationWindows = Readonly<Record<Severity, number>>;

/**
 * Days allowed to remediate an issue of each severity, from the time it was first seen (S1.2.3-18).
 * Defaults until they become installation settings: critical 7, high 30, medium 90, low 180.
 */
export const DEFAULT_REMEDIATION_WINDOWS: RemediationWindows = { critical: 7, high: 30, medium: 90, low: 180 };

/** An issue's remediation deadline: first seen plus its severity's window, as an ISO 8601 instant. */
export function remediationDeadline(
  firstSeenAt: string,
  severity: Severity,
  windows: RemediationWindows = DEFAULT_REMEDIATION_WINDOWS,
): string {
  return addDays(firstSeenAt, windows[severity]);
}

/** Overdue once the deadline has passed (the deadline instant itself is still on time). */
export function isOverdue(
  firstSeenAt: string,
  severity: Severity,
  now: Date,
  windows: RemediationWindows = DEFAULT_REMEDIATION_WINDOWS,
): boolean {
  return Date.parse(remediationDeadline(firstSeenAt, severity, windows)) < now.getTime();
}
