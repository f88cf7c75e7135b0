import { deciderSpec } from '../../support/decider-spec';
import { triageDecider } from '../../../domain/triage/decider';
import type { TriageCommand, TriageCommandType } from '../../../domain/triage/commands';
import type { TriageDecided, TriageRequested, TriageStreamEvent } from '../../../domain/triage/events';
import type { DecidableStatus, SettlingStatus, TriageStatus } from '../../../domain/triage/status';

/** Shared givens for the triage specs: two people, a few instants, and a history reaching each status. */
export const spec = deciderSpec(triageDecider);

export const alice = 'account-alice';
export const bob = 'account-bob';
export const integration = 'jira:SEC';

export const T0 = '2025-03-01T10:00:00.000Z';
export const T1 = '2025-03-02T10:00:00.000Z';
/** T0 + 30 days: the review date of the will_not_fix given below. */
export const REVIEW = '2025-03-31T10:00:00.000Z';

export function decided(status: DecidableStatus, over: Partial<TriageDecided['data']> = {}): TriageDecided {
  return {
    type: 'TriageDecided',
    data: {
      status,
      previousStatus: 'under_review',
      justification: status === 'not_affected' ? 'code_not_reachable' : null,
      comment: null,
      reviewDate: status === 'will_not_fix' ? REVIEW : null,
      actor: alice,
      at: T0,
      ...over,
    },
  };
}

export function requested(requestedStatus: SettlingStatus, over: Partial<TriageRequested['data']> = {}): TriageRequested {
  return {
    type: 'TriageRequested',
    data: {
      requestedStatus,
      previousStatus: 'under_review',
      justification: requestedStatus === 'not_affected' ? 'code_not_reachable' : null,
      comment: 'vendor says so',
      reviewDate: requestedStatus === 'will_not_fix' ? REVIEW : null,
      requestedBy: alice,
      at: T0,
      ...over,
    },
  };
}

/** A history that leaves the issue in `status` (pending_approval: alice asked for will_not_fix). */
export function historyIn(status: TriageStatus): TriageStreamEvent[] {
  const detected: TriageStreamEvent = { type: 'IssueDetected', data: { at: T0 } };
  if (status === 'under_review') return [detected];
  if (status === 'pending_approval') return [detected, requested('will_not_fix')];
  return [detected, decided(status)];
}

/** A command of each type that is valid in every status whose row lists it. */
export function sampleCommand(type: TriageCommandType): TriageCommand {
  switch (type) {
    case 'Triage':
      return { type, status: 'affected', actor: bob, fourEyes: true, now: new Date(T1) };
    case 'ApproveTriage':
      return { type, status: 'will_not_fix', actor: bob, now: new Date(T1) };
    case 'RefuseTriage':
      return { type, status: 'affected', actor: bob, now: new Date(T1) };
    case 'ReviewDateReached':
      return { type, now: new Date('2026-01-01T00:00:00.000Z') };
    case 'ExceptionReview':
      return { type, action: 'confirm', actor: bob, fourEyes: true, now: new Date(T1) };
    case 'ProposeTriage':
      return { type, closing: 'refusal', integration, reportedBy: 'Carol', now: new Date(T1) };
  }
}
