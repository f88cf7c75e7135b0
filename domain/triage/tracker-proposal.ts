import type { ProposeTriage } from './commands';
import type { TriageEvent } from './events';
import { TRACKER_FALSE_POSITIVE_JUSTIFICATION, type TriageJustification } from './justification';
import { addDays } from './review-date';
import type { TriageState } from './state';
import { isSettling, type SettlingStatus } from './status';

/** Spec 2 (ticket webhook): a refusal proposes will_not_fix with a review date ninety days out. */
export const TRACKER_REFUSAL_REVIEW_DAYS = 90;

interface Proposal {
  status: SettlingStatus;
  justification: TriageJustification | null;
  reviewDate: string | null;
}

function proposalFor(command: ProposeTriage): Proposal {
  return command.closing === 'refusal'
    ? { status: 'will_not_fix', justification: null, reviewDate: addDays(command.now, TRACKER_REFUSAL_REVIEW_DAYS) }
    : { status: 'not_affected', justification: TRACKER_FALSE_POSITIVE_JUSTIFICATION, reviewDate: null };
}

/**
 * §3.2 ticket webhook row and S1.3.2-08/-09.
 * - An unsettled issue (under_review, affected, pending_approval) goes to pending_approval with the
 *   proposal, whatever the four-eyes setting: a tracker's word always waits for a person
 *   (FOUR_EYES.ProposeTriage; a proposal has no direct form, so the row is a fact the spec checks). A request
 *   already pending is replaced, as a person's new triage would replace it: the closing is the newer fact.
 * - A settled issue never moves. A proposal that disagrees with it is recorded as
 *   TriageContradictedByTracker (audit TRIAGE_CONTRADICTED_BY_TRACKER); one that agrees decides nothing.
 */
export function decideTrackerProposal(command: ProposeTriage, state: TriageState): TriageEvent[] {
  const { status, justification, reviewDate } = proposalFor(command);
  const { integration } = command;
  const at = command.now.toISOString();
  const comment = command.reportedBy ?? null;
  const current = state.triageStatus;
  if (isSettling(current)) {
    if (current === status) return [];
    return [
      { type: 'TriageContradictedByTracker', data: { status: current, proposedStatus: status, integration, comment, actor: null, at } },
    ];
  }
  return [
    {
      type: 'TriageProposedByTracker',
      data: { requestedStatus: status, previousStatus: current, justification, comment, reviewDate, integration, actor: null, at },
    },
  ];
}
