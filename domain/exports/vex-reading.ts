import type { TriageJustification } from '../triage/justification';
import type { TriageStatus } from '../triage/status';

/**
 * The VEX reading of a triage (spec 1 §4.5), one table for every format: each situation an issue
 * can be in, and what CycloneDX, OpenVEX and CSAF say of it. The serialisers read their cell here and
 * nowhere else; spec/domain/exports walks the table cell by cell against each format's output.
 */
export type VexSituation =
  | 'under_review'
  | 'affected'
  | 'pending_approval'
  | 'not_affected_with_justification'
  | 'not_affected_without_justification'
  | 'will_not_fix'
  | 'fixed'
  /** The issue is resolved (no longer reported), whatever its triage: fixed (S1.4.5-17). */
  | 'resolved';

export type CycloneDxState = 'in_triage' | 'exploitable' | 'not_affected' | 'resolved';
export type OpenVexStatus = 'under_investigation' | 'affected' | 'not_affected' | 'fixed';
export type CsafProductStatus = 'under_investigation' | 'known_affected' | 'known_not_affected' | 'fixed';
export type CsafRemediation = 'none_available' | 'no_fix_planned';

export interface VexCells {
  cyclonedx: { state: CycloneDxState; response: readonly 'will_not_fix'[] | null };
  /** action: the action statement OpenVEX requires of affected; `{reviewDate}` is filled in. */
  openvex: { status: OpenVexStatus; action: string | null };
  csaf: { status: CsafProductStatus; remediation: CsafRemediation | null };
}

const UNDER_INVESTIGATION: VexCells = {
  cyclonedx: { state: 'in_triage', response: null },
  openvex: { status: 'under_investigation', action: null },
  csaf: { status: 'under_investigation', remediation: null },
};
const FIXED: VexCells = {
  cyclonedx: { state: 'resolved', response: null },
  openvex: { status: 'fixed', action: null },
  csaf: { status: 'fixed', remediation: null },
};

export const VEX_READING: Readonly<Record<VexSituation, VexCells>> = {
  under_review: UNDER_INVESTIGATION,
  // S1.4.5-11: a request waiting for a second person says nothing settled yet.
  pending_approval: UNDER_INVESTIGATION,
  // S1.4.5-13
  not_affected_without_justification: UNDER_INVESTIGATION,
  // S1.4.5-12 (the justification per format: JUSTIFICATION_READING)
  not_affected_with_justification: {
    cyclonedx: { state: 'not_affected', response: null },
    openvex: { status: 'not_affected', action: null },
    csaf: { status: 'known_not_affected', remediation: null },
  },
  affected: {
    cyclonedx: { state: 'exploitable', response: null },
    openvex: { status: 'affected', action: 'Affected: remediation is planned.' },
    csaf: { status: 'known_affected', remediation: 'none_available' },
  },
  // S1.4.5-14, -15, -16
  will_not_fix: {
    cyclonedx: { state: 'exploitable', response: ['will_not_fix'] },
    openvex: { status: 'affected', action: 'Will not fix: the risk is accepted until the exception is reviewed on {reviewDate}.' },
    csaf: { status: 'known_affected', remediation: 'no_fix_planned' },
  },
  fixed: FIXED,
  // S1.4.5-17
  resolved: FIXED,
};

/** A justification in each format's words (S1.4.5-18: CycloneDX keeps Vigil's own four). */
export interface JustificationCells {
  cyclonedx: 'code_not_present' | 'code_not_reachable' | 'requires_environment' | 'protected_by_mitigating_control';
  /** OpenVEX justifications, also CSAF's flag labels. */
  openvex: 'vulnerable_code_not_present' | 'vulnerable_code_not_in_execute_path' | 'vulnerable_code_cannot_be_controlled_by_adversary' | 'inline_mitigations_already_exist';
  csaf: JustificationCells['openvex'];
}

export const JUSTIFICATION_READING: Readonly<Record<TriageJustification, JustificationCells>> = {
  code_not_present: { cyclonedx: 'code_not_present', openvex: 'vulnerable_code_not_present', csaf: 'vulnerable_code_not_present' },
  code_not_reachable: { cyclonedx: 'code_not_reachable', openvex: 'vulnerable_code_not_in_execute_path', csaf: 'vulnerable_code_not_in_execute_path' },
  requires_environment: { cyclonedx: 'requires_environment', openvex: 'vulnerable_code_cannot_be_controlled_by_adversary', csaf: 'vulnerable_code_cannot_be_controlled_by_adversary' },
  protected_by_mitigating_control: { cyclonedx: 'protected_by_mitigating_control', openvex: 'inline_mitigations_already_exist', csaf: 'inline_mitigations_already_exist' },
  // A tracker's false positive, once approved, keeps the OpenVEX name it was proposed with.
  vulnerable_code_not_in_execute_path: { cyclonedx: 'code_not_reachable', openvex: 'vulnerable_code_not_in_execute_path', csaf: 'vulnerable_code_not_in_execute_path' },
};

/** Where an issue stands for VEX: resolved first, then its triage. */
export function vexSituation(issue: { open: boolean; triageStatus: TriageStatus; justification: string | null }): VexSituation {
  if (!issue.open) return 'resolved';
  switch (issue.triageStatus) {
    case 'not_affected':
      return issue.justification && issue.justification in JUSTIFICATION_READING ? 'not_affected_with_justification' : 'not_affected_without_justification';
    default:
      return issue.triageStatus;
  }
}

/** The OpenVEX action statement with its blanks filled. */
export function actionStatement(template: string, reviewDate: string | null): string {
  return template.replace('{reviewDate}', reviewDate ? reviewDate.slice(0, 10) : 'its review date');
}
