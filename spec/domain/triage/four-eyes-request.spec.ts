import { expect } from 'chai';
import { fold } from '../../../domain/shared/decider';
import { triageDecider } from '../../../domain/triage/decider';
import { SETTLING_STATUSES, TRIAGE_STATUSES } from '../../../domain/triage/status';
import { alice, decided, historyIn, REVIEW, requested, spec, T0 } from './fixtures';

describe('triage: §3.2 row "any --triage with a settling status, four-eyes on--> pending_approval"', () => {
  for (const from of TRIAGE_STATUSES) {
    for (const status of SETTLING_STATUSES) {
      it(`[S1.3.2-01] from ${from}, ${status} under four-eyes is requested, not applied`, () => {
        const events = triageDecider.decide(
          {
            type: 'Triage',
            status,
            justification: status === 'not_affected' ? 'code_not_reachable' : undefined,
            expiresInDays: status === 'will_not_fix' ? 30 : undefined,
            comment: 'vendor says so',
            actor: alice,
            fourEyes: true,
            now: new Date(T0),
          },
          fold(triageDecider, historyIn(from)),
        );
        expect(events).to.deep.equal([requested(status, { previousStatus: from })]);
      });
    }
  }

  it('[S1.3.2-02] the pending request keeps justification, comment, review date and triageRequestedStatus', () => {
    spec
      .given(historyIn('under_review'))
      .when({ type: 'Triage', status: 'will_not_fix', expiresInDays: 30, comment: 'compensating WAF rule', actor: alice, fourEyes: true, now: new Date(T0) })
      .then([requested('will_not_fix', { comment: 'compensating WAF rule' })]);

    const state = fold(triageDecider, [...historyIn('under_review'), requested('not_affected', { comment: 'dead code' })]);
    expect(state.triageStatus).to.equal('pending_approval');
    expect(state.triageRequestedStatus).to.equal('not_affected');
    expect(state.pending).to.deep.equal({
      requestedBy: alice,
      integration: null,
      justification: 'code_not_reachable',
      comment: 'dead code',
      reviewDate: null,
    });
  });

  it('[S1.3.2-03] with four-eyes off a settling status is set directly', () => {
    spec
      .given(historyIn('affected'))
      .when({ type: 'Triage', status: 'will_not_fix', expiresInDays: 30, actor: alice, fourEyes: false, now: new Date(T0) })
      .then([decided('will_not_fix', { previousStatus: 'affected', reviewDate: REVIEW })]);
  });

  it('[S1.3.2-01] under_review and affected are not settling: applied directly even under four-eyes', () => {
    spec
      .given(historyIn('pending_approval'))
      .when({ type: 'Triage', status: 'affected', comment: 'reachable after all', actor: alice, fourEyes: true, now: new Date(T0) })
      .then([decided('affected', { previousStatus: 'pending_approval', comment: 'reachable after all' })]);
    spec
      .given(historyIn('fixed'))
      .when({ type: 'Triage', status: 'under_review', actor: alice, fourEyes: true, now: new Date(T0) })
      .then([decided('under_review', { previousStatus: 'fixed' })]);
  });

  it('[S1.3.2-01] a new request replaces one already pending', () => {
    const state = fold(triageDecider, [...historyIn('pending_approval'), requested('fixed', { previousStatus: 'pending_approval' })]);
    expect(state.triageRequestedStatus).to.equal('fixed');
    expect(state.pending?.reviewDate).to.equal(null);
  });
});
