import type { AccountId } from './commands';
import type { TriageStreamEvent } from './events';
import { evolve } from './evolve';
import { initialState } from './state';
import type { SettlingStatus, TriageStatus } from './status';

export type HistoryOrigin =
  | 'detect'
  | 'resolve'
  | 'reopen'
  | 'triage'
  | 'triage_request'
  | 'tracker_proposal'
  | 'approval'
  | 'refusal'
  | 'review_expired'
  | 'exception_confirmed'
  | 'exception_extended'
  | 'exception_revoked'
  | 'tracker_contradiction';

/** One line of an issue's history as GET /issues/{id} shows its decisions (S1.2.3-05, -06). */
export interface TriageHistoryEntry {
  readonly at: string;
  readonly origin: HistoryOrigin;
  /** The deciding account; null for the system (detect, resolve, reopen, review expiry) and integrations. */
  readonly actor: AccountId | null;
  /** The integration, for a tracker's proposal or contradiction. */
  readonly integration: string | null;
  /** The issue's triage after the entry. */
  readonly triageStatus: TriageStatus;
  readonly triageRequestedStatus: SettlingStatus | null;
  readonly comment: string | null;
  /** When the issue had last been resolved before this entry; null if it was open. */
  readonly previousResolvedAt: string | null;
}

const ORIGIN: Readonly<Record<TriageStreamEvent['type'], HistoryOrigin>> = {
  IssueDetected: 'detect',
  IssueResolved: 'resolve',
  IssueReopened: 'reopen',
  TriageDecided: 'triage',
  TriageRequested: 'triage_request',
  TriageProposedByTracker: 'tracker_proposal',
  TriageApproved: 'approval',
  TriageRefused: 'refusal',
  TriageReviewExpired: 'review_expired',
  ExceptionConfirmed: 'exception_confirmed',
  ExceptionExtended: 'exception_extended',
  ExceptionRevoked: 'exception_revoked',
  TriageContradictedByTracker: 'tracker_contradiction',
};

/** The members some events carry; reading them through one shape keeps the fold free of per-type cases. */
interface CommonData {
  at: string;
  actor?: AccountId | null;
  comment?: string | null;
  integration?: string;
}

/** Folds a stream into its history entries, each with the state it left behind. */
export function triageHistory(events: readonly TriageStreamEvent[]): TriageHistoryEntry[] {
  const entries: TriageHistoryEntry[] = [];
  let state = initialState();
  for (const event of events) {
    const previousResolvedAt = state.resolvedAt;
    state = evolve(state, event);
    const data: CommonData = event.data;
    entries.push({
      at: data.at,
      origin: ORIGIN[event.type],
      actor: event.type === 'TriageRequested' ? event.data.requestedBy : (data.actor ?? null),
      integration: data.integration ?? null,
      triageStatus: state.triageStatus,
      triageRequestedStatus: state.triageRequestedStatus,
      comment: data.comment ?? null,
      previousResolvedAt,
    });
  }
  return entries;
}
