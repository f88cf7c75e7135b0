import type { Principal } from '../identity/principal';

/**
 * The issue a decision is about, as the caller may see it: the key of its stream; unknown and unseen
 * alike answer 404 (projections/backlog/issue-queries.ts implements it over the `issues` read model).
 */
export interface VisibleIssues {
  issueKeyOf(principal: Principal, issueId: number): Promise<string>;
}

/** An issue whose will_not_fix review date has come. */
export interface DueReview {
  id: number;
  issueKey: string;
}

/**
 * will_not_fix issues whose review date is at or before `now`, by id after `after`, at most `limit`
 * of them (projections/backlog/due-reviews.ts).
 */
export interface DueReviews {
  due(now: Date, after: number, limit: number): Promise<DueReview[]>;
}

/** An open, unsettled issue whose remediation deadline passed (VGL-SEC-030). */
export interface PassedDeadline {
  id: number;
  issueKey: string;
  targetKind: string;
  targetId: number;
  severity: 'critical' | 'high' | 'medium' | 'low';
  firstSeenAt: string;
}

/**
 * Open issues, not settled by triage, first seen in [from, to) (ISO instants) with the given
 * severity, by id after `after`, at most `limit`: those whose deadline (first seen plus the
 * severity's window) passed in a given span.
 */
export interface PassedDeadlines {
  firstSeenBetween(severity: PassedDeadline['severity'], from: string, to: string, after: number, limit: number): Promise<PassedDeadline[]>;
}

/** The installation settings as triage reads them (triage_four_eyes, remediation_days_*); the settings context answers. */
export interface SettingsReader {
  all(): Promise<Readonly<Record<string, unknown>>>;
}
