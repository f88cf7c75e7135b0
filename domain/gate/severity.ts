import { refuse } from '../shared/decider';

/**
 * Severity vocabulary shared by the gate, the scorecards and remediation deadlines.
 * It lives here because domain/shared belongs to another owner; it is a candidate for domain/shared/severity.ts.
 */
export const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Higher is worse; lets the gate compare against a threshold with one integer comparison per issue. */
export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { critical: 4, high: 3, medium: 2, low: 1 };

export function isSeverity(value: unknown): value is Severity {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(SEVERITY_RANK, value);
}

/**
 * Reads a gate policy's severity threshold (spec 1 §7: "400 Unknown severity").
 * Absent (undefined or null) means the default, high. Values are compared exactly: the vocabulary is
 * lowercase in the specification and in CONVENTIONS.md, so "HIGH" or "" is as unknown as "severe".
 */
export function parseSeverityThreshold(value: unknown, fallback: Severity = 'high'): Severity {
  if (value === undefined || value === null) return fallback;
  if (isSeverity(value)) return value;
  throw refuse.invalid('Unknown severity', { severity: value, allowed: [...SEVERITIES] });
}
