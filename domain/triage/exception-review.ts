import { refuse } from '../shared/decider';
import { REVIEW_ACTIONS, type ExceptionReview } from './commands';
import type { TriageEvent } from './events';
import { assertFourEyes } from './four-eyes';
import { addDays, requireExpiresInDays } from './review-date';
import type { TriageState } from './state';
import { isSettling, type SettlingStatus } from './status';

/**
 * POST /exceptions/{issueId}/reviews. An exception is a settled status in force (not_affected,
 * will_not_fix, fixed): a person's word that keeps an issue out of the gate. Rules (spec 1 §4.5 leaves them open):
 * - confirm records that the exception was looked at and keeps status and review date;
 * - extend applies to will_not_fix only (the only status with a review date), needs expires_in_days
 *   1..3650 counted from now, and must move the date later: shortening is a new triage decision;
 * - revoke returns the issue to under_review, whoever asks: it only removes trust;
 * - with four-eyes on, the account whose word the exception rests on may not confirm or extend it
 *   (403), or one person could keep their own risk acceptance alive indefinitely (FOUR_EYES rows);
 * - expires_in_days on confirm or revoke is refused (400), as on a triage that has no review date;
 * - a pending request is reviewed by approval or refusal, not here (the transition table: 409).
 */
export function decideExceptionReview(command: ExceptionReview, state: TriageState): TriageEvent[] {
  const { action, actor, now } = command;
  const at = now.toISOString();
  const comment = command.comment ?? null;
  if (!(REVIEW_ACTIONS as readonly string[]).includes(action)) {
    throw refuse.invalid(`Unknown review action ${JSON.stringify(action)}`, { allowed: [...REVIEW_ACTIONS] });
  }
  const expiresInDays = command.expiresInDays ?? null;
  if (action !== 'extend' && expiresInDays !== null) {
    throw refuse.invalid('expires_in_days applies to extend only', { field: 'expires_in_days' });
  }
  const newReviewDate = action === 'extend' ? addDays(now, requireExpiresInDays(expiresInDays)) : null;

  const status = settledStatusOf(state);
  assertFourEyes(command, state);
  if (action === 'revoke') return [{ type: 'ExceptionRevoked', data: { previousStatus: status, comment, actor, at } }];
  if (action === 'confirm') {
    return [{ type: 'ExceptionConfirmed', data: { status, reviewDate: state.reviewDate, comment, actor, at } }];
  }
  const previousReviewDate = state.reviewDate;
  if (status !== 'will_not_fix' || previousReviewDate === null || newReviewDate === null) {
    throw refuse.conflict(`Only a will_not_fix exception has a review date to extend; this one is ${status}`);
  }
  if (Date.parse(newReviewDate) <= Date.parse(previousReviewDate)) {
    throw refuse.conflict(`The new review date ${newReviewDate} is not later than the current ${previousReviewDate}`);
  }
  return [{ type: 'ExceptionExtended', data: { reviewDate: newReviewDate, previousReviewDate, comment, actor, at } }];
}

/** decide only routes here from the settled rows of the transition table. */
function settledStatusOf(state: TriageState): SettlingStatus {
  if (!isSettling(state.triageStatus)) throw refuse.conflict(`An issue in ${state.triageStatus} holds no exception to review`);
  return state.triageStatus;
}
