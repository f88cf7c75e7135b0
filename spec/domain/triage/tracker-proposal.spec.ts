import { expect } from 'chai';
import { fold } from '../../../domain/shared/decider';
import { triageDecider } from '../../../domain/triage/decider';
import type { ProposeTriage } from '../../../domain/triage/commands';
import { historyIn, integration, spec, T1 } from './fixtures';

const refusal: ProposeTriage = { type: 'ProposeTriage', closing: 'refusal', integration, reportedBy: 'Carol', now: new Date(T1) };
const falsePositive: ProposeTriage = { type: 'ProposeTriage', closing: 'false_positive', integration, reportedBy: 'Carol', now: new Date(T1) };
/** T1 + 90 days. */
const NINETY_DAYS_OUT = '2025-05-31T10:00:00.000Z';

describe('triage: §3.2 row "ticket webhook --tracker closes as refusal or false positive--> pending_approval (proposal)"', () => {
  for (const from of ['under_review', 'affected'] as const) {
    it(`[S1.3.2-08] a refusal closing puts a ${from} issue in pending_approval proposing will_not_fix, review date ninety days out`, () => {
      spec
        .given(historyIn(from))
        .when(refusal)
        .then([
          {
            type: 'TriageProposedByTracker',
            data: { requestedStatus: 'will_not_fix', previousStatus: from, justification: null, comment: 'Carol', reviewDate: NINETY_DAYS_OUT, integration, actor: null, at: T1 },
          },
        ]);
    });
  }

  it('[S1.3.2-08] a false-positive closing proposes not_affected with vulnerable_code_not_in_execute_path', () => {
    spec
      .given(historyIn('under_review'))
      .when(falsePositive)
      .then([
        {
          type: 'TriageProposedByTracker',
          data: {
            requestedStatus: 'not_affected',
            previousStatus: 'under_review',
            justification: 'vulnerable_code_not_in_execute_path',
            comment: 'Carol',
            reviewDate: null,
            integration,
            actor: null,
            at: T1,
          },
        },
      ]);
  });

  it('[S1.3.2-08] a pending_approval issue stays pending_approval, with the tracker\'s proposal as the request', () => {
    const history = historyIn('pending_approval');
    const after = fold(triageDecider, [...history, ...triageDecider.decide(falsePositive, fold(triageDecider, history))]);
    expect(after.triageStatus).to.equal('pending_approval');
    expect(after.triageRequestedStatus).to.equal('not_affected');
    expect(after.pending).to.deep.include({ requestedBy: null, integration });
  });

  it('[S1.3.2-08] a proposal waits for approval even with four-eyes off (the command carries no such switch)', () => {
    const after = fold(triageDecider, [...historyIn('affected'), ...triageDecider.decide(refusal, fold(triageDecider, historyIn('affected')))]);
    expect(after.triageStatus).to.equal('pending_approval');
  });

  for (const settled of ['not_affected', 'will_not_fix', 'fixed'] as const) {
    it(`[S1.3.2-09] a ticket webhook never moves a ${settled} issue`, () => {
      for (const command of [refusal, falsePositive]) {
        const history = historyIn(settled);
        const after = fold(triageDecider, [...history, ...triageDecider.decide(command, fold(triageDecider, history))]);
        expect(after).to.deep.equal(fold(triageDecider, history));
      }
    });
  }

  it('[S1.3.2-09] a closing that disagrees with a settled status is recorded as TriageContradictedByTracker', () => {
    spec
      .given(historyIn('fixed'))
      .when(refusal)
      .then([
        {
          type: 'TriageContradictedByTracker',
          data: { status: 'fixed', proposedStatus: 'will_not_fix', integration, comment: 'Carol', actor: null, at: T1 },
        },
      ]);
  });

  it('[S1.3.2-09] a closing that agrees with the settled status decides nothing', () => {
    spec.given(historyIn('will_not_fix')).when(refusal).then([]);
    spec.given(historyIn('not_affected')).when(falsePositive).then([]);
  });
});
