import type { DomainEvent } from '../shared/decider';

/**
 * Issue lifecycle events, owned and written by the issues context (scans, imports) on the same issue
 * stream. Triage reads them only to know whether the issue is open; these types state the fields it
 * reads, nothing more. If the issues context names them otherwise, adapt here (an upcaster), not in evolve.
 */
export type IssueDetected = DomainEvent<'IssueDetected', { at: string }>;
export type IssueResolved = DomainEvent<'IssueResolved', { at: string }>;
export type IssueReopened = DomainEvent<'IssueReopened', { at: string }>;

export type IssueLifecycleEvent = IssueDetected | IssueResolved | IssueReopened;
