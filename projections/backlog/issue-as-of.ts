import { issueStateAsOf, upTo } from '../../domain/exports/as-of';
import { refuse } from '../../domain/shared/decider';
import { streams } from '../../domain/shared/streams';
import type { Principal } from '../../application/identity/principal';
import type { EventStore } from '../../application/ports/event-store';
import type { IssueQueries } from './issue-queries';

/**
 * GET /issues/{id}?as_of=<instant> (issue #11): the issue as its stream stood at that instant, folded
 * with the triage decider's own evolve, its history cut there. What the log cannot say of the past
 * (KEV, EPSS: enrichment of today; the remediation deadline from today's windows) is answered as it
 * is now; `asOf` says which instant answered.
 */
export class IssueAsOfQueries {
  constructor(private readonly issues: IssueQueries, private readonly store: EventStore) {}

  async get(principal: Principal, id: number, asOf: Date) {
    const key = await this.issues.issueKeyOf(principal, id);
    const instant = asOf.toISOString();
    const events = upTo((await this.store.readStream(streams.issue(key))).map((e) => ({ type: e.type, data: e.data, at: e.metadata.at, revision: e.revision })), instant);
    const folded = issueStateAsOf(events);
    if (!folded) throw refuse.notFound(`Issue ${id} did not exist at ${instant}.`);
    const now = await this.issues.get(principal, id);
    const { issue, triage } = folded;
    const revision = events[events.length - 1].revision;
    return {
      ...now,
      status: issue.open ? 'open' : 'resolved', severity: issue.severity, line: issue.line, title: issue.title,
      triageStatus: triage.triageStatus, triageRequestedStatus: triage.triageRequestedStatus, justification: triage.justification, reviewDate: triage.reviewDate,
      resolvedAt: triage.resolvedAt, lastSeenAt: folded.lastAt, revision, history: now.history.filter((h) => h.revision <= revision), asOf: instant,
    };
  }
}
