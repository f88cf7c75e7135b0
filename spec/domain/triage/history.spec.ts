import { expect } from 'chai';
import { triageHistory } from '../../../domain/triage/history';
import type { TriageStreamEvent } from '../../../domain/triage/events';
import { alice, bob, decided, requested, T0, T1 } from './fixtures';

describe('triage: issue history entries', () => {
  const RESOLVED = '2025-04-01T00:00:00.000Z';
  const REOPENED = '2025-04-10T00:00:00.000Z';
  const stream: TriageStreamEvent[] = [
    { type: 'IssueDetected', data: { at: T0 } },
    requested('fixed', { at: T0 }),
    { type: 'TriageApproved', data: { status: 'fixed', requestedBy: alice, justification: null, comment: null, reviewDate: null, actor: bob, at: T1 } },
    { type: 'IssueResolved', data: { at: RESOLVED } },
    { type: 'IssueReopened', data: { at: REOPENED } },
    decided('affected', { previousStatus: 'fixed', at: REOPENED }),
  ];
  const entries = triageHistory(stream);

  it('[S1.2.3-05] every entry carries previousResolvedAt, a timestamp or null', () => {
    expect(entries.map((e) => e.previousResolvedAt)).to.deep.equal([null, null, null, null, RESOLVED, null]);
  });

  it('[S1.2.3-06] entries of origin reopen have actor null', () => {
    const reopen = entries.find((e) => e.origin === 'reopen');
    expect(reopen).to.include({ actor: null, previousResolvedAt: RESOLVED, at: REOPENED });
  });

  it('[S1.4.5-04] entries name who decided and the triage after each decision', () => {
    expect(entries.map((e) => [e.origin, e.actor, e.triageStatus, e.triageRequestedStatus])).to.deep.equal([
      ['detect', null, 'under_review', null],
      ['triage_request', alice, 'pending_approval', 'fixed'],
      ['approval', bob, 'fixed', null],
      ['resolve', null, 'fixed', null],
      ['reopen', null, 'fixed', null],
      ['triage', alice, 'affected', null],
    ]);
  });
});
