import { assertNever, refuse } from '../shared/decider';
import { decideApproval, decideRefusal } from './approval';
import type { TriageCommand } from './commands';
import type { TriageEvent } from './events';
import { decideExceptionReview } from './exception-review';
import { decideReviewExpiry } from './review-expiry';
import type { TriageState } from './state';
import { decideTrackerProposal } from './tracker-proposal';
import { decideTriage } from './triage-decision';
import { accepts } from './transitions';

/** Why a status's row in the transition table lacks a command, in words for the problem detail. */
function notInTable(command: TriageCommand, state: TriageState): TriageEvent[] {
  const status = state.triageStatus;
  switch (command.type) {
    case 'ReviewDateReached':
      return []; // the scheduler's call: nothing is due (see review-expiry.ts)
    case 'ApproveTriage':
    case 'RefuseTriage':
      throw refuse.conflict(`No triage request is waiting for approval; the issue is ${status}`);
    case 'ExceptionReview':
      throw refuse.conflict(`An issue in ${status} holds no exception to review`);
    default:
      throw refuse.conflict(`${command.type} does not apply to an issue in ${status}`);
  }
}

/** One issue's triage: the transition table first, then one small function per command. */
export function decide(command: TriageCommand, state: TriageState): TriageEvent[] {
  if (!accepts(state.triageStatus, command.type)) return notInTable(command, state);
  switch (command.type) {
    case 'Triage':
      return decideTriage(command, state);
    case 'ApproveTriage':
      return decideApproval(command, state);
    case 'RefuseTriage':
      return decideRefusal(command, state);
    case 'ReviewDateReached':
      return decideReviewExpiry(command, state);
    case 'ExceptionReview':
      return decideExceptionReview(command, state);
    case 'ProposeTriage':
      return decideTrackerProposal(command, state);
    default:
      return assertNever(command);
  }
}
