import type { AccountId } from './commands';
import type { TriageJustification } from './justification';
import type { SettlingStatus, TriageStatus } from './status';

/** A settling status waiting for a second person (kept whole, S1.3.2-02). */
export interface PendingRequest {
  /** The account that asked; null when a tracker proposed it (any approver may then decide). */
  readonly requestedBy: AccountId | null;
  /** The integration that proposed it, when a tracker did. */
  readonly integration: string | null;
  readonly justification: TriageJustification | null;
  readonly comment: string | null;
  readonly reviewDate: string | null;
}

export interface TriageState {
  readonly triageStatus: TriageStatus;
  /** Set exactly while triageStatus is pending_approval (S1.2.3-02, -03); the API field of the same name. */
  readonly triageRequestedStatus: SettlingStatus | null;
  /** The request behind pending_approval; null otherwise. */
  readonly pending: PendingRequest | null;
  /** The following describe the status in force (all null while pending_approval). */
  readonly justification: TriageJustification | null;
  readonly comment: string | null;
  /** Only for will_not_fix: when the exception must be looked at again. */
  readonly reviewDate: string | null;
  /**
   * Whose word the status in force rests on: the requester of an approved request, or the account that
   * decided directly. Under four-eyes that account may not confirm or extend its own exception.
   */
  readonly decidedBy: AccountId | null;
  /** Lifecycle as the issues context reports it. */
  readonly open: boolean;
  readonly resolvedAt: string | null;
}

/** A new issue is open and under_review. */
export const initialState = (): TriageState => ({
  triageStatus: 'under_review',
  triageRequestedStatus: null,
  pending: null,
  justification: null,
  comment: null,
  reviewDate: null,
  decidedBy: null,
  open: true,
  resolvedAt: null,
});
