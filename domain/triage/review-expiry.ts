import type { ReviewDateReached } from './commands';
import type { TriageEvent } from './events';
import { isReached } from './review-date';
import type { TriageState } from './state';

/**
 * §3.2 "will_not_fix --review date reached--> under_review", with no actor.
 * The scheduler may ask early, or race a person who just extended or re-triaged: then nothing is due
 * and nothing is decided, so the scheduler never needs to handle a refusal.
 */
export function decideReviewExpiry(command: ReviewDateReached, state: TriageState): TriageEvent[] {
  const { reviewDate } = state;
  if (state.triageStatus !== 'will_not_fix' || reviewDate === null || !isReached(reviewDate, command.now)) return [];
  return [{ type: 'TriageReviewExpired', data: { reviewDate, actor: null, at: command.now.toISOString() } }];
}
