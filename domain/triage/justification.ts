/**
 * Why an issue is not_affected. A person chooses among the CycloneDX impact-analysis justifications
 * that spec 1 §4.5 names for VEX, so that every exported statement carries one the format knows.
 */
export const NOT_AFFECTED_JUSTIFICATIONS = [
  'code_not_present',
  'code_not_reachable',
  'requires_environment',
  'protected_by_mitigating_control',
] as const;
export type NotAffectedJustification = (typeof NOT_AFFECTED_JUSTIFICATIONS)[number];

/**
 * A tracker closing a ticket as a false positive proposes this justification (spec 2, ticket webhook):
 * the OpenVEX name, kept as the proposal states it. Only tracker proposals carry it; a person cannot.
 */
export const TRACKER_FALSE_POSITIVE_JUSTIFICATION = 'vulnerable_code_not_in_execute_path';

export type TriageJustification = NotAffectedJustification | typeof TRACKER_FALSE_POSITIVE_JUSTIFICATION;

export function isNotAffectedJustification(value: unknown): value is NotAffectedJustification {
  return (NOT_AFFECTED_JUSTIFICATIONS as readonly unknown[]).includes(value);
}
