/** Triage vocabulary of spec 1 §2.3 and §3.2. */
export const TRIAGE_STATUSES = [
  'under_review',
  'affected',
  'not_affected',
  'will_not_fix',
  'fixed',
  'pending_approval',
] as const;
export type TriageStatus = (typeof TRIAGE_STATUSES)[number];

/** Statuses that settle an issue: under four-eyes they are requested, never set directly (S1.3.2-01). */
export const SETTLING_STATUSES = ['not_affected', 'will_not_fix', 'fixed'] as const;
export type SettlingStatus = (typeof SETTLING_STATUSES)[number];

/** What a person may name in a triage; pending_approval is only ever reached through four-eyes. */
export type DecidableStatus = Exclude<TriageStatus, 'pending_approval'>;

/** Where turning a request down may send the issue (S1.3.2-06). */
export const REFUSAL_STATUSES = ['under_review', 'affected'] as const;
export type RefusalStatus = (typeof REFUSAL_STATUSES)[number];

export function isTriageStatus(value: unknown): value is TriageStatus {
  return (TRIAGE_STATUSES as readonly unknown[]).includes(value);
}

export function isSettling(value: unknown): value is SettlingStatus {
  return (SETTLING_STATUSES as readonly unknown[]).includes(value);
}

export function isRefusalStatus(value: unknown): value is RefusalStatus {
  return (REFUSAL_STATUSES as readonly unknown[]).includes(value);
}
