import type { TriageCommandType } from './commands';
import type { TriageStatus } from './status';

/**
 * Which commands an issue in each triage status accepts: spec 1 §3.2 read row by row, and consulted
 * by decide before anything else. A command missing from a status's row is refused (409), except the
 * scheduler's ReviewDateReached, which then decides nothing (see decide.ts).
 *
 *   §3.2 row                                                          | here
 *   any             --triage, settling status, four-eyes on--> pending | Triage in every row
 *   pending_approval --approval with the requested status--> that one  | ApproveTriage in pending_approval
 *   pending_approval --approver turns down--> under_review | affected  | RefuseTriage in pending_approval
 *   will_not_fix    --review date reached--> under_review              | ReviewDateReached in will_not_fix
 *   pending_approval --ticket webhook (refusal, false positive)--> pending_approval (proposal)
 *                   | ProposeTriage in every row: an unsettled issue takes the proposal; a settled one
 *                     does not move (S1.3.2-09) and only a disagreement is recorded
 *   (not in §3.2: the exception reviews of §4.5)                       | ExceptionReview in the settled rows
 */
export const TRIAGE_TRANSITIONS: Readonly<Record<TriageStatus, readonly TriageCommandType[]>> = {
  under_review: ['Triage', 'ProposeTriage'],
  affected: ['Triage', 'ProposeTriage'],
  not_affected: ['Triage', 'ProposeTriage', 'ExceptionReview'],
  will_not_fix: ['Triage', 'ProposeTriage', 'ExceptionReview', 'ReviewDateReached'],
  fixed: ['Triage', 'ProposeTriage', 'ExceptionReview'],
  pending_approval: ['Triage', 'ProposeTriage', 'ApproveTriage', 'RefuseTriage'],
};

export function accepts(status: TriageStatus, command: TriageCommandType): boolean {
  return TRIAGE_TRANSITIONS[status].includes(command);
}
