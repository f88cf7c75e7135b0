import type { TriageStreamEvent } from './events';
import type { TriageState } from './state';
import { triageChange } from './triage-change';

/** The lifecycle as the issues context reports it, and each triage event's change (triage-change.ts). */
export function evolve(state: TriageState, event: TriageStreamEvent): TriageState {
  switch (event.type) {
    case 'IssueDetected':
      return { ...state, open: true, resolvedAt: null };
    case 'IssueResolved':
      return { ...state, open: false, resolvedAt: event.data.at };
    case 'IssueReopened':
      return { ...state, open: true, resolvedAt: null };
    default:
      return { ...state, ...triageChange(event) };
  }
}
