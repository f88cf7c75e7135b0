import type { DomainEvent } from '../shared/decider';
import type { AccountId } from './commands';
import type { IssueLifecycleEvent } from './issue-lifecycle';
import type { NotAffectedJustification, TriageJustification } from './justification';
import type { DecidableStatus, RefusalStatus, SettlingStatus, TriageStatus } from './status';

/**
 * Events of the triage context, appended to the issue's stream. Every event names its actor
 * (null when the system or an integration acted) and `at`, the command's instant: events never read a clock.
 */

/** A status set directly: an unsettling one, or a settling one with four-eyes off. */
export type TriageDecided = DomainEvent<
  'TriageDecided',
  {
    status: DecidableStatus;
    previousStatus: TriageStatus;
    justification: NotAffectedJustification | null;
    comment: string | null;
    /** Only for will_not_fix: now + expires_in_days. */
    reviewDate: string | null;
    actor: AccountId;
    at: string;
  }
>;

/** A settling status asked for under four-eyes: the issue waits in pending_approval (S1.3.2-01, -02). */
export type TriageRequested = DomainEvent<
  'TriageRequested',
  {
    requestedStatus: SettlingStatus;
    previousStatus: TriageStatus;
    justification: NotAffectedJustification | null;
    comment: string | null;
    reviewDate: string | null;
    requestedBy: AccountId;
    at: string;
  }
>;

/** A tracker's closing proposed a settling status (S1.3.2-08); the integration is the author. */
export type TriageProposedByTracker = DomainEvent<
  'TriageProposedByTracker',
  {
    requestedStatus: SettlingStatus;
    previousStatus: TriageStatus;
    justification: TriageJustification | null;
    comment: string | null;
    reviewDate: string | null;
    integration: string;
    actor: null;
    at: string;
  }
>;

/** A second person approved the pending request with the requested status (S1.3.2-04). */
export type TriageApproved = DomainEvent<
  'TriageApproved',
  {
    status: SettlingStatus;
    /** Null when the request was a tracker's proposal. */
    requestedBy: AccountId | null;
    justification: TriageJustification | null;
    comment: string | null;
    reviewDate: string | null;
    actor: AccountId;
    at: string;
  }
>;

/** The pending request was turned down (S1.3.2-06). */
export type TriageRefused = DomainEvent<
  'TriageRefused',
  {
    status: RefusalStatus;
    requestedStatus: SettlingStatus;
    requestedBy: AccountId | null;
    comment: string | null;
    actor: AccountId;
    at: string;
  }
>;

/** A will_not_fix issue reached its review date and went back to under_review (S1.3.2-07). */
export type TriageReviewExpired = DomainEvent<'TriageReviewExpired', { reviewDate: string; actor: null; at: string }>;

/** An exception was reviewed and kept as it is. */
export type ExceptionConfirmed = DomainEvent<
  'ExceptionConfirmed',
  { status: SettlingStatus; reviewDate: string | null; comment: string | null; actor: AccountId; at: string }
>;

/** A will_not_fix exception's review date was moved later. */
export type ExceptionExtended = DomainEvent<
  'ExceptionExtended',
  { reviewDate: string; previousReviewDate: string; comment: string | null; actor: AccountId; at: string }
>;

/** An exception was withdrawn: the issue is back under_review. */
export type ExceptionRevoked = DomainEvent<
  'ExceptionRevoked',
  { previousStatus: SettlingStatus; comment: string | null; actor: AccountId; at: string }
>;

/** A tracker's closing disagreed with a settled status; nothing moved (S1.3.2-09, TRIAGE_CONTRADICTED_BY_TRACKER). */
export type TriageContradictedByTracker = DomainEvent<
  'TriageContradictedByTracker',
  {
    status: SettlingStatus;
    proposedStatus: SettlingStatus;
    integration: string;
    comment: string | null;
    actor: null;
    at: string;
  }
>;

/** What decide returns. */
export type TriageEvent =
  | TriageDecided
  | TriageRequested
  | TriageProposedByTracker
  | TriageApproved
  | TriageRefused
  | TriageReviewExpired
  | ExceptionConfirmed
  | ExceptionExtended
  | ExceptionRevoked
  | TriageContradictedByTracker;

/** What an issue stream holds, as far as triage folds it. */
export type TriageStreamEvent = TriageEvent | IssueLifecycleEvent;
