import { expect } from 'chai';
import { fold } from '../../../domain/shared/decider';
import { triageDecider } from '../../../domain/triage/decider';
import type { TriageProposedByTracker } from '../../../domain/triage/events';
import { alice, bob, historyIn, integration, REVIEW, requested, spec, T0, T1 } from './fixtures';

const proposal: TriageProposedByTracker = {
  type: 'TriageProposedByTracker',
  data: {
    requestedStatus: 'not_affected',
    previousStatus: 'under_review',
    justification: 'vulnerable_code_not_in_execute_path',
    comment: 'Carol',
    reviewDate: null,
    integration,
    actor: null,
    at: T0,
  },
};

describe('triage: §3.2 approval and refusal of a pending request', () => {
  it('[S1.3.2-04] approval with the requested status moves the issue to that status, keeping the request', () => {
    spec
      .given(historyIn('pending_approval'))
      .when({ type: 'ApproveTriage', status: 'will_not_fix', actor: bob, now: new Date(T1) })
      .then([
        {
          type: 'TriageApproved',
          data: { status: 'will_not_fix', requestedBy: alice, justification: null, comment: 'vendor says so', reviewDate: REVIEW, actor: bob, at: T1 },
        },
      ]);
    const events = triageDecider.decide({ type: 'ApproveTriage', status: 'will_not_fix', actor: bob, now: new Date(T1) }, fold(triageDecider, historyIn('pending_approval')));
    const after = fold(triageDecider, [...historyIn('pending_approval'), ...events]);
    expect(after).to.include({ triageStatus: 'will_not_fix', triageRequestedStatus: null, reviewDate: REVIEW, decidedBy: alice, pending: null });
  });

  it('[S1.3.2-05] [S1.7-05] approval with another status is 409 triage-approval-differs carrying requestedStatus', () => {
    const error = spec
      .given(historyIn('pending_approval'))
      .when({ type: 'ApproveTriage', status: 'not_affected', actor: bob, now: new Date(T1) })
      .thenRefused('conflict', 'triage-approval-differs');
    expect(error.extensions).to.deep.equal({ requestedStatus: 'will_not_fix' });
  });

  it('[S1.3.2-05] an unsettling status named in an approval also differs from the request (409)', () => {
    spec.given(historyIn('pending_approval')).when({ type: 'ApproveTriage', status: 'affected', actor: bob, now: new Date(T1) }).thenRefused('conflict', 'triage-approval-differs');
  });

  it('[S1.3.2-04] the account that asked may not approve its own request (403), whatever status it names', () => {
    spec.given(historyIn('pending_approval')).when({ type: 'ApproveTriage', status: 'will_not_fix', actor: alice, now: new Date(T1) }).thenRefused('forbidden');
    spec.given(historyIn('pending_approval')).when({ type: 'ApproveTriage', status: 'fixed', actor: alice, now: new Date(T1) }).thenRefused('forbidden');
  });

  it('[S1.3.2-04] a tracker proposal has no requesting account: any approver may approve it', () => {
    spec
      .given([proposal])
      .when({ type: 'ApproveTriage', status: 'not_affected', actor: alice, now: new Date(T1) })
      .then([
        {
          type: 'TriageApproved',
          data: { status: 'not_affected', requestedBy: null, justification: 'vulnerable_code_not_in_execute_path', comment: 'Carol', reviewDate: null, actor: alice, at: T1 },
        },
      ]);
  });

  it('[S1.3.2-04] an approval naming no known status is a bad request (400)', () => {
    spec
      .given(historyIn('pending_approval'))
      .when({ type: 'ApproveTriage', status: 'accepted' as never, actor: bob, now: new Date(T1) })
      .thenRefused('invalid');
  });

  for (const status of ['under_review', 'affected'] as const) {
    it(`[S1.3.2-06] turning a request down moves the issue to ${status}`, () => {
      spec
        .given(historyIn('pending_approval'))
        .when({ type: 'RefuseTriage', status, comment: 'not convinced', actor: bob, now: new Date(T1) })
        .then([
          {
            type: 'TriageRefused',
            data: { status, requestedStatus: 'will_not_fix', requestedBy: alice, comment: 'not convinced', actor: bob, at: T1 },
          },
        ]);
    });
  }

  it('[S1.3.2-06] after a refusal nothing is pending and the issue reads the status given', () => {
    const after = fold(triageDecider, [
      ...historyIn('pending_approval'),
      { type: 'TriageRefused', data: { status: 'affected', requestedStatus: 'will_not_fix', requestedBy: alice, comment: null, actor: bob, at: T1 } },
    ]);
    expect(after).to.include({ triageStatus: 'affected', triageRequestedStatus: null, pending: null, reviewDate: null });
  });

  it('[S1.3.2-06] a refusal may only send the issue to under_review or affected (400 otherwise)', () => {
    spec
      .given(historyIn('pending_approval'))
      .when({ type: 'RefuseTriage', status: 'fixed' as never, actor: bob, now: new Date(T1) })
      .thenRefused('invalid');
  });

  it('[S1.3.2-06] the requester may turn down (withdraw) their own request: it settles nothing', () => {
    spec
      .given([requested('fixed')])
      .when({ type: 'RefuseTriage', status: 'under_review', actor: alice, now: new Date(T1) })
      .then([{ type: 'TriageRefused', data: { status: 'under_review', requestedStatus: 'fixed', requestedBy: alice, comment: null, actor: alice, at: T1 } }]);
  });
});
