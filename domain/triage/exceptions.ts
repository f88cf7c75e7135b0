import type { AccountId } from './commands';
import type { TriageJustification } from './justification';
import type { TriageState } from './state';
import { isSettling, type SettlingStatus } from './status';

/** One entry of GET /exceptions: granted and requested_status per entry (S1.4.5-05). */
export interface ExceptionEntry {
  /** The settled status in force, or null while only requested. */
  readonly granted: SettlingStatus | null;
  /** The status waiting for approval, or null once granted. */
  readonly requestedStatus: SettlingStatus | null;
  readonly justification: TriageJustification | null;
  readonly comment: string | null;
  readonly reviewDate: string | null;
  /** The account whose word it rests on (requester); null for a tracker's proposal. */
  readonly requestedBy: AccountId | null;
}

/**
 * The exception, if it has one: a settled status in force, or a settling request waiting.
 * A resolved issue has none to list: the scanner no longer sees what the exception was excusing.
 */
export function exceptionOf(state: TriageState): ExceptionEntry | null {
  if (!state.open) return null;
  if (state.pending !== null && state.triageRequestedStatus !== null) {
    const { justification, comment, reviewDate, requestedBy } = state.pending;
    return { granted: null, requestedStatus: state.triageRequestedStatus, justification, comment, reviewDate, requestedBy };
  }
  if (!isSettling(state.triageStatus)) return null;
  const { justification, comment, reviewDate, decidedBy } = state;
  return { granted: state.triageStatus, requestedStatus: null, justification, comment, reviewDate, requestedBy: decidedBy };
}
