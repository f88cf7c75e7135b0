import { RecordedEvent } from '../../domain/shared/event-envelope';
import type { IssueDetected, IssueReopened, IssueResolved } from '../../domain/backlog/issue';
import { initialState, TRIAGE_EVENT_TYPES, triageChange, type TriageChange, type TriageEvent } from '../../domain/triage';
import { Projection } from '../engine/projection';
import { RowWriter } from '../engine/row-writer';
import { OWASP_CATEGORIES_PER_ISSUE, owaspCategory } from '../../domain/backlog/owasp';

/**
 * `issues`: one row per issue with its lifecycle, triage status and the revision of its stream
 * (the ETag a conditional triage compares); `issue_owasp_categories`: the OWASP Top 10 categories
 * its detection named (issue #16). Lifecycle events come from scans and imports, triage
 * events from the triage context; both live on the issue's stream.
 */
type Handler = (w: RowWriter, e: RecordedEvent<any>) => Promise<unknown> | void;

const touch = (e: RecordedEvent, extra: Record<string, unknown> = {}) => ({ revision: e.revision, ...extra });

/**
 * The triage columns a change sets, from the decider's own rule (domain/triage/triage-change.ts):
 * only the fields the event names are written, the others stay as they were (a justification or
 * review date an event leaves out is stored as null).
 */
function triageColumns(change: TriageChange): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  if ('triageStatus' in change) columns.triage_status = change.triageStatus;
  if ('triageRequestedStatus' in change) columns.triage_requested_status = change.triageRequestedStatus;
  if ('justification' in change) columns.justification = change.justification ?? null;
  if ('reviewDate' in change) columns.review_date = change.reviewDate ?? null;
  return columns;
}

const triageChanged: Handler = (w, e: RecordedEvent<any>) =>
  w.update('issues', { issue_key: e.stream.slice('issue-'.length) }, touch(e, triageColumns(triageChange({ type: e.type, data: e.data } as TriageEvent))));

/** A new issue's triage: the decider's initial state. */
const NEW_ISSUE_TRIAGE = triageColumns(initialState());

/** The OWASP categories an IssueDetected names, as stored: normal-form codes only, each once (never a reason to stop the projection). */
function categoriesOf(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return [...new Set(value.filter((c): c is string => typeof c === 'string').map(owaspCategory).filter((c): c is string => c !== null))].slice(0, OWASP_CATEGORIES_PER_ISSUE);
}

const handlers: Record<string, Handler> = {
  IssueDetected: (w, e: RecordedEvent<IssueDetected['data']>) => {
    const d = e.data;
    w.insert('issues', {
      id: d.id, issue_key: d.key, target_kind: d.targetKind, target_id: d.targetId, type: d.type, tool_key: d.toolKey,
      tool_name: d.toolName ?? d.provenance.toolName, tool_version: d.toolVersion !== undefined ? d.toolVersion : d.provenance.toolVersion, source_slug: d.provenance.source, origin: d.provenance.origin,
      rule_id: d.ruleId, path: d.path, line: d.line, severity: d.severity, identifier: d.identifier, package_name: d.packageName,
      package_version: d.packageVersion, fixable: d.fixable, title: d.title.slice(0, 4000), kev: null, epss: null, status: 'open',
      ...NEW_ISSUE_TRIAGE,
      first_seen_at: d.at, last_seen_at: d.at, resolved_at: null, revision: e.revision,
    });
    // Events from before issue #16 carry no categories; anything but a list of codes in normal form is left out.
    for (const category of categoriesOf(d.owaspCategories)) w.insert('issue_owasp_categories', { issue_id: d.id, category }, ['issue_id', 'category']);
  },
  IssueResolved: (w, e: RecordedEvent<IssueResolved['data']>) => w.update('issues', { id: e.data.id }, touch(e, { status: 'resolved', resolved_at: e.data.at })),
  IssueReopened: (w, e: RecordedEvent<IssueReopened['data']>) => w.update('issues', { id: e.data.id }, touch(e, {
    status: 'open', resolved_at: null, last_seen_at: e.data.at, severity: e.data.severity, line: e.data.line,
  })),
  ...Object.fromEntries(TRIAGE_EVENT_TYPES.map((type) => [type, triageChanged])),
};

export const backlogProjection: Projection = {
  name: 'backlog',
  handles: new Set(Object.keys(handlers)),
  tables: ['issues', 'issue_owasp_categories'],
  async apply(w, events) {
    for (const e of events) await handlers[e.type](w, e);
  },
};
