import type { Severity } from './severity';

export type IssueId = string | number;

/** A violation about the target as a whole carries only rule and reason (S1.2.8-04). */
export interface TargetViolation {
  readonly rule: 'observation' | 'coverage';
  readonly reason: string;
}

/** A violation about one issue names it (S1.2.8-03). */
export interface FindingViolation {
  readonly rule: 'kev' | 'severity';
  readonly reason: string;
  readonly issueId: IssueId;
  readonly identifier: string;
  readonly severity: Severity;
  readonly package: string | null;
  /** Where the finding is, when the issue has a location (SAST, secrets, IaC; the CI client's annotations and SARIF use them). */
  readonly path?: string;
  readonly line?: number;
}

export type Violation = TargetViolation | FindingViolation;
export type ViolationRule = Violation['rule'];

/** Spec 1 §2.8: passed, and the violations that made it fail (none when it passed). */
export interface Verdict {
  readonly passed: boolean;
  readonly violations: readonly Violation[];
}
