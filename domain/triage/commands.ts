import type { DecidableStatus, RefusalStatus, TriageStatus } from './status';

/** An account identifier; the application resolves it from the session or key. */
export type AccountId = string;

/** Every command carries the instant it is decided at, from the Clock port; its events record it as ISO 8601 (UTC) in `at`. */
interface Timed {
  readonly now: Date;
}

/** POST /issues/{id}/triage (and each issue of POST /issues/triage). */
export interface Triage extends Timed {
  readonly type: 'Triage';
  readonly status: DecidableStatus;
  readonly justification?: string | null;
  readonly comment?: string | null;
  readonly expiresInDays?: number | null;
  readonly actor: AccountId;
  /** The installation setting triage_four_eyes, read by the handler when the command is built. */
  readonly fourEyes: boolean;
}

/** POST /issues/{id}/triage-approval `{status}`. */
export interface ApproveTriage extends Timed {
  readonly type: 'ApproveTriage';
  readonly status: TriageStatus;
  readonly actor: AccountId;
}

/** POST /issues/{id}/triage-refusal `{status, comment?}`. */
export interface RefuseTriage extends Timed {
  readonly type: 'RefuseTriage';
  readonly status: RefusalStatus;
  readonly comment?: string | null;
  readonly actor: AccountId;
}

/** Sent by the scheduler for will_not_fix issues; harmless when the date is not (or no longer) due. */
export interface ReviewDateReached extends Timed {
  readonly type: 'ReviewDateReached';
}

/** What a review does to an exception (four-eyes.ts guards each on its own). */
export const REVIEW_ACTIONS = ['confirm', 'extend', 'revoke'] as const;
export type ReviewAction = (typeof REVIEW_ACTIONS)[number];

/** POST /exceptions/{issueId}/reviews `{action, expires_in_days?, comment?}`. */
export interface ExceptionReview extends Timed {
  readonly type: 'ExceptionReview';
  readonly action: ReviewAction;
  readonly expiresInDays?: number | null;
  readonly comment?: string | null;
  readonly actor: AccountId;
  readonly fourEyes: boolean;
}

/**
 * A tracker closed the ticket (spec 2, ticket webhook): as a refusal (Won't Fix, Declined, ...)
 * or as a false positive. The tickets context classifies the closing; triage decides what it moves.
 */
export interface ProposeTriage extends Timed {
  readonly type: 'ProposeTriage';
  readonly closing: 'refusal' | 'false_positive';
  /** The integration recorded as author, e.g. "jira:SEC". */
  readonly integration: string;
  /** The name the tracker reports for whoever closed the ticket; it goes into the comment. */
  readonly reportedBy?: string | null;
}

export type TriageCommand = Triage | ApproveTriage | RefuseTriage | ReviewDateReached | ExceptionReview | ProposeTriage;
export type TriageCommandType = TriageCommand['type'];
