import { RecordedEvent } from '../../domain/shared/event-envelope';
import type { IssueDetected, IssueReopened, IssueResolved } from '../../domain/backlog/issue';
import { Projection } from '../engine/projection';
import { RowWriter } from '../engine/row-writer';

/**
 * `issues`: one row per issue with its lifecycle, triage status and the revision of its stream
 * (the ETag a conditional triage compares). Lifecycle events come from scans and imports, triage
 * events from the triage context; both live on the issue's stream.
 */
type Handler = (w: RowWriter, e: RecordedEvent<any>) => Promise<unknown> | void;

const touch = (e: RecordedEvent, extra: Record<string, unknown> = {}) => ({ revision: e.revision, ...extra });

/** Triage events and the status they leave the issue in (null: unchanged). */
const triageStatusAfter: Record<string, (d: any) => { triage_status?: string; triage_requested_status?: string | null; justification?: string | null; review_date?: string | null }> = {
  TriageDecided: (d) => ({ triage_status: d.status, triage_requested_status: null, justification: d.justification ?? null, review_date: d.reviewDate ?? null }),
  // While a request waits, nothing is in force: the request's own values live in its event.
  TriageRequested: (d) => ({ triage_status: 'pending_approval', triage_requested_status: d.requestedStatus, justification: null, review_date: null }),
  TriageProposedByTracker: (d) => ({ triage_status: 'pending_approval', triage_requested_status: d.requestedStatus, justification: null, review_date: null }),
  TriageApproved: (d) => ({ triage_status: d.status, triage_requested_status: null, justification: d.justification ?? null, review_date: d.reviewDate ?? null }),
  TriageRefused: (d) => ({ triage_status: d.status, triage_requested_status: null, justification: null, review_date: null }),
  TriageReviewExpired: () => ({ triage_status: 'under_review', triage_requested_status: null, justification: null, review_date: null }),
  ExceptionConfirmed: () => ({}),
  ExceptionExtended: (d) => ({ review_date: d.reviewDate }),
  ExceptionRevoked: () => ({ triage_status: 'under_review', triage_requested_status: null, justification: null, review_date: null }),
  TriageContradictedByTracker: () => ({}),
};

const handlers: Record<string, Handler> = {
  IssueDetected: (w, e: RecordedEvent<IssueDetected['data']>) => {
    const d = e.data;
    w.insert('issues', {
      id: d.id, issue_key: d.key, target_kind: d.targetKind, target_id: d.targetId, type: d.type, tool_key: d.toolKey,
      tool_name: d.toolName ?? d.provenance.toolName, tool_version: d.toolVersion !== undefined ? d.toolVersion : d.provenance.toolVersion, source_slug: d.provenance.source, origin: d.provenance.origin,
      rule_id: d.ruleId, path: d.path, line: d.line, severity: d.severity, identifier: d.identifier, package_name: d.packageName,
      package_version: d.packageVersion, fixable: d.fixable, title: d.title.slice(0, 4000), kev: null, epss: null, status: 'open',
      triage_status: 'under_review', triage_requested_status: null, justification: null, review_date: null,
      first_seen_at: d.at, last_seen_at: d.at, resolved_at: null, revision: e.revision,
    });
  },
  IssueResolved: (w, e: RecordedEvent<IssueResolved['data']>) => w.update('issues', { id: e.data.id }, touch(e, { status: 'resolved', resolved_at: e.data.at })),
  IssueReopened: (w, e: RecordedEvent<IssueReopened['data']>) => w.update('issues', { id: e.data.id }, touch(e, {
    status: 'open', resolved_at: null, last_seen_at: e.data.at, severity: e.data.severity, line: e.data.line,
  })),
  ...Object.fromEntries(Object.entries(triageStatusAfter).map(([type, after]) => [type, (w: RowWriter, e: RecordedEvent<any>) => w.update('issues', { issue_key: e.stream.slice('issue-'.length) }, touch(e, after(e.data)))])),
};

export const backlogProjection: Projection = {
  name: 'backlog',
  handles: new Set(Object.keys(handlers)),
  tables: ['issues'],
  async apply(w, events) {
    for (const e of events) await handlers[e.type](w, e);
  },
};
