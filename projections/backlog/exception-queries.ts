import { fold } from '../../domain/shared/decider';
import { streams } from '../../domain/shared/streams';
import { exceptionOf, SETTLING_STATUSES, triageDecider, type TriageStreamEvent } from '../../domain/triage';
import type { Principal } from '../../application/identity/principal';
import type { VisibilityReader } from '../../application/identity/visibility';
import type { EventStore } from '../../application/ports/event-store';
import { Database } from '../../infrastructure/db/database';
import { IssueRow, onVisibleTargets } from './issue-queries';

export interface ExceptionFilter {
  repository_id?: number;
  container_id?: number;
  /** granted: a settled status in force; requested: waiting in pending_approval. */
  state?: 'granted' | 'requested';
  limit: number;
  after: number;
}

/**
 * GET /exceptions (spec 1 §4.5, S1.4.5-05): every open issue the caller sees that holds an exception,
 * granted (a settled status in force: not_affected, will_not_fix, fixed) or requested (pending_approval
 * with the status asked for). Each entry names `granted` and `requested_status` as the specification
 * writes them, with the justification, comment, review date and requester read from the issue's stream
 * (the domain's exceptionOf), so the entry says exactly what the decision said.
 */
export class ExceptionQueries {
  constructor(private readonly db: Database, private readonly visibilities: VisibilityReader, private readonly store: EventStore) {}

  async list(principal: Principal, f: ExceptionFilter) {
    const visibility = await this.visibilities.of(principal);
    const q = this.db.knex('issues').where('issues.id', '>', f.after).where('issues.status', 'open').orderBy('issues.id').limit(f.limit + 1).select('issues.*');
    if (f.state === 'granted') q.whereIn('issues.triage_status', [...SETTLING_STATUSES]);
    else if (f.state === 'requested') q.where('issues.triage_status', 'pending_approval');
    else q.whereIn('issues.triage_status', [...SETTLING_STATUSES, 'pending_approval']);
    if (f.repository_id !== undefined) q.where({ 'issues.target_kind': 'repository', 'issues.target_id': f.repository_id });
    if (f.container_id !== undefined) q.where({ 'issues.target_kind': 'container', 'issues.target_id': f.container_id });
    onVisibleTargets(this.db, q, visibility);
    const rows: IssueRow[] = await q;
    const page = rows.slice(0, f.limit);
    const entries = await Promise.all(page.map((row) => this.entry(row)));
    return { items: entries.filter((e): e is NonNullable<typeof e> => e !== null), next: rows.length > f.limit ? Number(page[page.length - 1].id) : null };
  }

  private async entry(row: IssueRow) {
    const events = await this.store.readStream(streams.issue(row.issue_key));
    const state = fold(triageDecider, events.map((e) => ({ type: e.type, data: e.data }) as TriageStreamEvent));
    const exception = exceptionOf(state);
    if (!exception) return null; // the read model is a step ahead of or behind the stream: list what the stream says
    const targetKind = row.target_kind;
    return {
      issueId: Number(row.id),
      targetKind, repositoryId: targetKind === 'repository' ? Number(row.target_id) : null, containerId: targetKind === 'container' ? Number(row.target_id) : null,
      ruleId: row.rule_id, title: row.title, severity: row.severity, type: row.type,
      granted: exception.granted,
      requested_status: exception.requestedStatus,
      justification: exception.justification,
      comment: exception.comment,
      reviewDate: exception.reviewDate,
      requestedBy: exception.requestedBy === null ? null : Number(exception.requestedBy),
      etag: `"${events.length ? events[events.length - 1].revision : Number(row.revision)}"`,
    };
  }
}
