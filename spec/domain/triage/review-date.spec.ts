import { expect } from 'chai';
import { fold } from '../../../domain/shared/decider';
import { triageDecider } from '../../../domain/triage/decider';
import { historyIn, REVIEW, spec, T1 } from './fixtures';

describe('triage: §3.2 row "will_not_fix --review date reached--> under_review"', () => {
  it('[S1.3.2-07] a will_not_fix issue whose review date is reached moves to under_review, with no actor', () => {
    spec
      .given(historyIn('will_not_fix'))
      .when({ type: 'ReviewDateReached', now: new Date(REVIEW) })
      .then([{ type: 'TriageReviewExpired', data: { reviewDate: REVIEW, actor: null, at: REVIEW } }]);
    const after = fold(triageDecider, [...historyIn('will_not_fix'), { type: 'TriageReviewExpired', data: { reviewDate: REVIEW, actor: null, at: REVIEW } }]);
    expect(after).to.include({ triageStatus: 'under_review', reviewDate: null, justification: null, decidedBy: null });
  });

  it('[S1.3.2-07] before the review date nothing is decided (the scheduler may ask early)', () => {
    spec.given(historyIn('will_not_fix')).when({ type: 'ReviewDateReached', now: new Date(T1) }).then([]);
  });

  it('[S1.3.2-07] a review date reached on an extended exception waits for the new date', () => {
    spec
      .given([
        ...historyIn('will_not_fix'),
        { type: 'ExceptionExtended', data: { reviewDate: '2025-06-01T00:00:00.000Z', previousReviewDate: REVIEW, comment: null, actor: 'x', at: T1 } },
      ])
      .when({ type: 'ReviewDateReached', now: new Date(REVIEW) })
      .then([]);
  });
});
