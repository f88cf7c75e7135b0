import { assertNever } from '../shared/decider';
import type { TriageStreamEvent } from './events';
import type { PendingRequest, TriageState } from './state';
import type { SettlingStatus, TriageStatus } from './status';

/** The status in force with nothing pending: the shape every direct transition leaves behind. */
function inForce(
  state: TriageState,
  triageStatus: TriageStatus,
  fields: Pick<TriageState, 'justification' | 'comment' | 'reviewDate' | 'decidedBy'>,
): TriageState {
  return { ...state, triageStatus, triageRequestedStatus: null, pending: null, ...fields };
}

function awaiting(state: TriageState, requestedStatus: SettlingStatus, pending: PendingRequest): TriageState {
  return {
    ...state,
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

export function evolve(state: TriageState, event: TriageStreamEvent): TriageState {
  switch (event.type) {
    case 'TriageDecided': {
      const { status, justification, comment, reviewDate, actor } = event.data;
      return inForce(state, status, { justification, comment, reviewDate, decidedBy: actor });
    }
    case 'TriageRequested': {
      const { requestedStatus, requestedBy, justification, comment, reviewDate } = event.data;
      return awaiting(state, requestedStatus, { requestedBy, integration: null, justification, comment, reviewDate });
    }
    case 'TriageProposedByTracker': {
      const { requestedStatus, integration, justification, comment, reviewDate } = event.data;
      return awaiting(state, requestedStatus, { requestedBy: null, integration, justification, comment, reviewDate });
    }
    case 'TriageApproved': {
      const { status, justification, comment, reviewDate, requestedBy } = event.data;
      return inForce(state, status, { justification, comment, reviewDate, decidedBy: requestedBy });
    }
    case 'TriageRefused':
      return inForce(state, event.data.status, { ...cleared, comment: event.data.comment, decidedBy: event.data.actor });
    case 'TriageReviewExpired':
      return inForce(state, 'under_review', cleared);
    case 'ExceptionRevoked':
      return inForce(state, 'under_review', { ...cleared, comment: event.data.comment, decidedBy: event.data.actor });
    case 'ExceptionExtended':
      return { ...state, reviewDate: event.data.reviewDate };
    case 'ExceptionConfirmed':
    case 'TriageContradictedByTracker':
      // Facts for the audit trail and the exception register; the status in force is unchanged.
      return state;
    case 'IssueDetected':
      return { ...state, open: true, resolvedAt: null };
    case 'IssueResolved':
      return { ...state, open: false, resolvedAt: event.data.at };
    case 'IssueReopened':
      return { ...state, open: true, resolvedAt: null };
    default:
      return assertNever(event);
  }
}
