import { refuse } from '../shared/decider';
import type { ApproveTriage, RefuseTriage } from './commands';
import type { TriageEvent } from './events';
import { assertFourEyes } from './four-eyes';
import type { PendingRequest, TriageState } from './state';
import { isRefusalStatus, isTriageStatus, REFUSAL_STATUSES, type SettlingStatus } from './status';

/** decide only calls these in pending_approval (the transition table), where both are set. */
function pendingOf(state: TriageState): { requestedStatus: SettlingStatus; pending: PendingRequest } {
  if (state.triageRequestedStatus === null || state.pending === null) {
    throw refuse.conflict('No triage request is waiting for approval');
  }
  return { requestedStatus: state.triageRequestedStatus, pending: state.pending };
}

/**
 * §3.2 "pending_approval --approval with the requested status--> that status".
 * Order of refusals: an unknown status is a bad body (400); the requester approving their own request
 * is 403 (FOUR_EYES), whatever status they name, because four-eyes is about who, not what; a different status is
 * 409 triage-approval-differs with requestedStatus so the screen can offer the right one (§7).
 */
export function decideApproval(command: ApproveTriage, state: TriageState): TriageEvent[] {
  if (!isTriageStatus(command.status)) throw refuse.invalid(`Unknown triage status ${JSON.stringify(command.status)}`);
  const { requestedStatus, pending } = pendingOf(state);
  assertFourEyes(command, state);
  if (command.status !== requestedStatus) {
    throw refuse.conflict(
      `The request asks for ${requestedStatus}; an approval must name that status`,
      'triage-approval-differs',
      { requestedStatus },
    );
  }
  const { requestedBy, justification, comment, reviewDate } = pending;
  return [
    {
      type: 'TriageApproved',
      data: { status: requestedStatus, requestedBy, justification, comment, reviewDate, actor: command.actor, at: command.now.toISOString() },
    },
  ];
}

/**
 * §3.2 "pending_approval --approver turns down--> under_review or affected".
 * The requester may turn down their own request: that withdraws it and settles nothing, so
 * four-eyes has nothing to guard.
 */
export function decideRefusal(command: RefuseTriage, state: TriageState): TriageEvent[] {
  if (!isRefusalStatus(command.status)) {
    throw refuse.invalid(`A turned-down request goes to ${REFUSAL_STATUSES.join(' or ')}`, { allowed: [...REFUSAL_STATUSES] });
  }
  const { requestedStatus, pending } = pendingOf(state);
  return [
    {
      type: 'TriageRefused',
      data: {
        status: command.status,
        requestedStatus,
        requestedBy: pending.requestedBy,
        comment: command.comment ?? null,
        actor: command.actor,
        at: command.now.toISOString(),
      },
    },
  ];
}
