import { expect } from 'chai';
import { fold } from '../../../domain/shared/decider';
import { triageDecider } from '../../../domain/triage/decider';
import type { ExceptionReview } from '../../../domain/triage/commands';
import { exceptionOf } from '../../../domain/triage/exceptions';
import { alice, bob, decided, historyIn, REVIEW, requested, spec, T1 } from './fixtures';

function review(over: Partial<ExceptionReview> & Pick<ExceptionReview, 'action'>): ExceptionReview {
  return { type: 'ExceptionReview', actor: bob, fourEyes: true, now: new Date(T1), ...over };
}

describe('triage: exception reviews (POST /exceptions/{issueId}/reviews)', () => {
  it('[S1.4.5-06] confirm keeps the status and the review date', () => {
    spec
      .given(historyIn('will_not_fix'))
      .when(review({ action: 'confirm', comment: 'still no fix upstream' }))
      .then([{ type: 'ExceptionConfirmed', data: { status: 'will_not_fix', reviewDate: REVIEW, comment: 'still no fix upstream', actor: bob, at: T1 } }]);
    const after = fold(triageDecider, [
      ...historyIn('will_not_fix'),
      { type: 'ExceptionConfirmed', data: { status: 'will_not_fix', reviewDate: REVIEW, comment: null, actor: bob, at: T1 } },
    ]);
    expect(after).to.deep.equal(fold(triageDecider, historyIn('will_not_fix')));
  });

  it('[S1.4.5-06] extend moves a will_not_fix review date to now plus expires_in_days', () => {
    spec
      .given(historyIn('will_not_fix'))
      .when(review({ action: 'extend', expiresInDays: 90 }))
      .then([
        {
          type: 'ExceptionExtended',
          data: { reviewDate: '2025-05-31T10:00:00.000Z', previousReviewDate: REVIEW, comment: null, actor: bob, at: T1 },
        },
      ]);
  });

  it('[S1.4.5-06] revoke returns the issue to under_review', () => {
    spec
      .given(historyIn('not_affected'))
      .when(review({ action: 'revoke', comment: 'reachable after refactor' }))
      .then([{ type: 'ExceptionRevoked', data: { previousStatus: 'not_affected', comment: 'reachable after refactor', actor: bob, at: T1 } }]);
    const after = fold(triageDecider, [
      ...historyIn('not_affected'),
      { type: 'ExceptionRevoked', data: { previousStatus: 'not_affected', comment: null, actor: bob, at: T1 } },
    ]);
    expect(after).to.include({ triageStatus: 'under_review', justification: null });
  });

  it('[S1.4.5-06] under four-eyes the account an exception rests on may not confirm or extend it (403), but may revoke it', () => {
    const given = spec.given(historyIn('will_not_fix')); // decided by alice
    given.when(review({ action: 'confirm', actor: alice })).thenRefused('forbidden');
    given.when(review({ action: 'extend', expiresInDays: 90, actor: alice })).thenRefused('forbidden');
    given.when(review({ action: 'revoke', actor: alice })).then([
      { type: 'ExceptionRevoked', data: { previousStatus: 'will_not_fix', comment: null, actor: alice, at: T1 } },
    ]);
    given.when(review({ action: 'confirm', actor: alice, fourEyes: false })).then([
      { type: 'ExceptionConfirmed', data: { status: 'will_not_fix', reviewDate: REVIEW, comment: null, actor: alice, at: T1 } },
    ]);
  });

  it('[S1.4.5-06] an approved exception rests on its requester, not its approver', () => {
    const history = [
      requested('will_not_fix'),
      { type: 'TriageApproved' as const, data: { status: 'will_not_fix' as const, requestedBy: alice, justification: null, comment: null, reviewDate: REVIEW, actor: bob, at: T1 } },
    ];
    spec.given(history).when(review({ action: 'extend', expiresInDays: 90, actor: alice })).thenRefused('forbidden');
    spec.given(history).when(review({ action: 'confirm', actor: bob })).then([
      { type: 'ExceptionConfirmed', data: { status: 'will_not_fix', reviewDate: REVIEW, comment: null, actor: bob, at: T1 } },
    ]);
  });

  it('[S1.4.5-06] only will_not_fix has a review date to extend (409 for not_affected and fixed)', () => {
    spec.given(historyIn('not_affected')).when(review({ action: 'extend', expiresInDays: 30 })).thenRefused('conflict');
    spec.given(historyIn('fixed')).when(review({ action: 'extend', expiresInDays: 30 })).thenRefused('conflict');
  });

  it('[S1.4.5-06] an extension must move the review date later (409): shortening is a new triage', () => {
    spec.given(historyIn('will_not_fix')).when(review({ action: 'extend', expiresInDays: 5 })).thenRefused('conflict');
  });

  it('[S1.4.5-08] extend needs expires_in_days 1..3650; confirm and revoke take none (400)', () => {
    const given = spec.given(historyIn('will_not_fix'));
    given.when(review({ action: 'extend' })).thenRefused('invalid');
    given.when(review({ action: 'extend', expiresInDays: 3651 })).thenRefused('invalid');
    given.when(review({ action: 'confirm', expiresInDays: 30 })).thenRefused('invalid');
    given.when(review({ action: 'revoke', expiresInDays: 30 })).thenRefused('invalid');
    given.when(review({ action: 'renew' as never })).thenRefused('invalid');
  });

  it('[S1.4.5-06] an issue without a granted exception has nothing to review (409)', () => {
    spec.given(historyIn('affected')).when(review({ action: 'confirm' })).thenRefused('conflict');
    spec.given(historyIn('pending_approval')).when(review({ action: 'revoke' })).thenRefused('conflict');
  });
});

describe('triage: exception entries (GET /exceptions)', () => {
  it('[S1.4.5-05] a settled status in force is a granted exception; a pending request reads as requested_status', () => {
    expect(exceptionOf(fold(triageDecider, historyIn('will_not_fix')))).to.deep.equal({
      granted: 'will_not_fix',
      requestedStatus: null,
      justification: null,
      comment: null,
      reviewDate: REVIEW,
      requestedBy: alice,
    });
    expect(exceptionOf(fold(triageDecider, historyIn('pending_approval')))).to.deep.equal({
      granted: null,
      requestedStatus: 'will_not_fix',
      justification: null,
      comment: 'vendor says so',
      reviewDate: REVIEW,
      requestedBy: alice,
    });
  });

  it('[S1.4.5-05] unsettled and resolved issues hold no exception', () => {
    expect(exceptionOf(fold(triageDecider, historyIn('affected')))).to.equal(null);
    expect(exceptionOf(fold(triageDecider, [decided('fixed'), { type: 'IssueResolved', data: { at: T1 } }]))).to.equal(null);
  });
});
