import { assertNever } from '../shared/decider';
import type { TriageEvent } from './events';
import type { PendingRequest, TriageState } from './state';
import type { SettlingStatus, TriageStatus } from './status';

/** What a triage event sets of an issue's triage: the fields it names, the others left as they were. */
export type TriageChange = Partial<Omit<TriageState, 'open' | 'resolvedAt'>>;

/** The status in force with nothing pending: the shape every direct transition leaves behind. */
function inForce(triageStatus: TriageStatus, fields: Pick<TriageState, 'justification' | 'comment' | 'reviewDate' | 'decidedBy'>): TriageChange {
  return { triageStatus, triageRequestedStatus: null, pending: null, ...fields };
}

/** A request waiting for a second person: nothing is in force meanwhile, the request's own values live in `pending`. */
function awaiting(requestedStatus: SettlingStatus, pending: PendingRequest): TriageChange {
  return {
    triageStatus: 'pending_approval',
    triageRequestedStatus: requestedStatus,
    pending,
    justification: null,
    comment: null,
    reviewDate: null,
    decidedBy: null,
  };
}

const cleared = { justification: null, comment: null, reviewDate: null, decidedBy: null } as const;

/**
 * The one rule of what each triage event does to an issue's triage: evolve folds it into the
 * decider's state, and the `issues` read model (projections/backlog) writes the same change into
 * its triage columns, so the two can never disagree.
 */
export function triageChange(event: TriageEvent): TriageChange {
  switch (event.type) {
    case 'TriageDecided': {
      const { status, justification, comment, reviewDate, actor } = event.data;
      return inForce(status, { justification, comment, reviewDate, decidedBy: actor });
    }
    case 'TriageRequested': {
      const { requestedStatus, requestedBy, justification, comment, reviewDate } = event.data;
      return awaiting(requestedStatus, { requestedBy, integration: null, justification, comment, reviewDate });
    }
    case 'TriageProposedByTracker': {
      const { requestedStatus, integration, justification, comment, reviewDate } = event.data;
      return awaiting(requestedStatus, { requestedBy: null, integration, justification, comment, reviewDate });
    }
    case 'TriageApproved': {
      const { status, justification, comment, reviewDate, requestedBy } = event.data;
      return inForce(status, { justification, comment, reviewDate, decidedBy: requestedBy });
    }
    case 'TriageRefused':
      return inForce(event.data.status, { ...cleared, comment: event.data.comment, decidedBy: event.data.actor });
    case 'TriageReviewExpired':
      return inForce('under_review', cleared);
    case 'ExceptionRevoked':
      return inForce('under_review', { ...cleared, comment: event.data.comment, decidedBy: event.data.actor });
    case 'ExceptionExtended':
      return { reviewDate: event.data.reviewDate };
    case 'ExceptionConfirmed':
    case 'TriageContradictedByTracker':
      // Facts for the audit trail and the exception register; the status in force is unchanged.
      return {};
    default:
      return assertNever(event);
  }
}

/** Every triage event type, from the one mapping above (a read model handles exactly these). */
const TYPES: Readonly<Record<TriageEvent['type'], true>> = {
  TriageDecided: true, TriageRequested: true, TriageProposedByTracker: true, TriageApproved: true, TriageRefused: true,
  TriageReviewExpired: true, ExceptionConfirmed: true, ExceptionExtended: true, ExceptionRevoked: true, TriageContradictedByTracker: true,
};
export const TRIAGE_EVENT_TYPES = Object.keys(TYPES) as ReadonlyArray<TriageEvent['type']>;
