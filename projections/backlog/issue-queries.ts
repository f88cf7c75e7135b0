import { Knex } from 'knex';
import { isSeverity, SEVERITY_RANK } from '../../domain/gate/severity';
import { refuse } from '../../domain/shared/decider';
import { streams } from '../../domain/shared/streams';
import type { TargetKind } from '../../domain/shared/target-kind';
import { DEFAULT_REMEDIATION_WINDOWS, remediationDeadline, RemediationWindows } from '../../domain/triage/remediation-deadline';
import type { Principal } from '../../application/identity/principal';
import type { Visibility, VisibilityReader } from '../../application/identity/visibility';
import type { EventStore } from '../../application/ports/event-store';
import type { VisibleIssues } from '../../application/triage/ports';
import { Database } from '../../infrastructure/db/database';
import { scopeToVisible } from '../identity/visibility';
import { TARGET_TABLE } from '../targets/tables';

export interface IssueRow {
  id: number; issue_key: string; target_kind: TargetKind; target_id: number; type: string; tool_key: string; tool_name: string;
  tool_version: string | null; source_slug: string | null; origin: string; rule_id: string; path: string; line: number | null; severity: string;
  identifier: string | null; package_name: string | null; package_version: string | null; fixable: boolean | number | null; title: string;
  kev: boolean | number; epss: number | null; status: string; triage_status: string; triage_requested_status: string | null; justification: string | null;
  review_date: string | null; first_seen_at: string; last_seen_at: string; resolved_at: string | null; revision: number;
}

const SETTLED = ['not_affected', 'will_not_fix', 'fixed'];

export function issueView(r: IssueRow, windows: RemediationWindows = DEFAULT_REMEDIATION_WINDOWS) {
  return {
    id: Number(r.id), targetKind: r.target_kind, targetId: Number(r.target_id),
    repositoryId: r.target_kind === 'repository' ? Number(r.target_id) : null, containerId: r.target_kind === 'container' ? Number(r.target_id) : null,
    type: r.type, status: r.status, ruleId: r.rule_id, path: r.path, line: r.line === null ? null : Number(r.line), severity: r.severity, title: r.title,
    identifier: r.identifier, package: r.package_name, packageVersion: r.package_version, fixable: r.fixable === null ? null : Boolean(r.fixable),
    // A feed never synchronised reads unknown (null), never false or zero (S1.1-09; projections/enrichment.ts).
    kev: r.kev === null || r.kev === undefined ? null : Boolean(r.kev), epss: r.epss === null || r.epss === undefined ? null : Number(r.epss),
    triageStatus: r.triage_status, triageRequestedStatus: r.triage_requested_status, justification: r.justification, reviewDate: r.review_date,
    firstSeenAt: r.first_seen_at, lastSeenAt: r.last_seen_at, resolvedAt: r.resolved_at,
    // First seen plus the severity's window (S1.2.3-18), from the settings remediation_days_*.
    remediationDeadline: isSeverity(r.severity) ? remediationDeadline(r.first_seen_at, r.severity, windows) : null,
    provenance: { type: r.type, origin: r.origin, source: r.source_slug, toolName: r.tool_name, toolVersion: r.tool_version, toolKey: r.tool_key },
    revision: Number(r.revision),
  };
}

/** An issue's ETag: its stream revision, which every scan, import and decision moves. */
export const issueEtag = (revision: number) => `"${revision}"`;

export interface IssueFilter {
  triage_status?: string;
  repository_id?: number;
  container_id?: number;
  owasp_category?: string;
  unsettled?: boolean;
  status?: 'open' | 'resolved';
  severity?: string;
  /** Listed in the KEV catalogue (true) or known not to be (false); unknown (no feed yet) matches neither. */
  kev?: boolean;
  /** EPSS score at least this (0 to 1); an issue without a score does not match. */
  epss_min?: number;
  type?: string;
  sort?: IssueSort;
  limit: number;
  /** The last issue of the previous page: its id and, for a sort other than id, its sort key as that page's Link carried it. */
  after: number;
  afterKey?: string | number;
}

/**
 * The orders GET /issues pages through (keyset: the sort key, then the id, so the order holds
 * across pages while issues come and go). severity: most severe first; epss: highest score first,
 * unscored last; first_seen: oldest first; id: as created.
 */
export const ISSUE_SORTS = ['id', 'severity', 'epss', 'first_seen'] as const;
export type IssueSort = (typeof ISSUE_SORTS)[number];

const SORT_KEYS: Record<Exclude<IssueSort, 'id'>, { sql: string; descending: boolean; of: (r: IssueRow) => string | number }> = {
  severity: {
    sql: "(CASE issues.severity WHEN 'critical' THEN 4 WHEN 'high' THEN 3 WHEN 'medium' THEN 2 WHEN 'low' THEN 1 ELSE 0 END)", descending: true,
    of: (r) => (isSeverity(r.severity) ? SEVERITY_RANK[r.severity] : 0),
  },
  epss: { sql: 'COALESCE(issues.epss, -1)', descending: true, of: (r) => (r.epss === null || r.epss === undefined ? -1 : Number(r.epss)) },
  first_seen: { sql: 'issues.first_seen_at', descending: false, of: (r) => r.first_seen_at },
};

/** Reads the sort key a Link carried (after_key) for `sort`; a refusal names what it must be. */
export function parseAfterKey(sort: Exclude<IssueSort, 'id'>, text: string): string | number {
  if (sort === 'severity' && /^[0-4]$/.test(text)) return Number(text);
  if (sort === 'epss' && /^-?[0-9]+(\.[0-9]+)?(e-?[0-9]+)?$/i.test(text) && Number(text) >= -1 && Number(text) <= 1) return Number(text);
  if (sort === 'first_seen' && /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?Z$/.test(text)) return text;
  const expected = { severity: 'a severity rank from 0 to 4', epss: 'a score from -1 to 1', first_seen: 'an ISO-8601 UTC time' }[sort];
  throw refuse.invalid(`after_key must be ${expected} with sort=${sort}: copy it from the Link of the previous page.`);
}

/**
 * GET /issues and GET /issues/{id}: the backlog as the caller may see it. Triage finds the issue it
 * decides on through the same visibility (VisibleIssues).
 */
export class IssueQueries implements VisibleIssues {
  constructor(private readonly db: Database, private readonly visibilities: VisibilityReader, private readonly store: EventStore, private readonly windows: () => Promise<RemediationWindows> = async () => DEFAULT_REMEDIATION_WINDOWS) {}

  async list(principal: Principal, f: IssueFilter) {
    const visibility = await this.visibilities.of(principal);
    const q = this.db.knex('issues').limit(f.limit + 1).select('issues.*');
    const sort = f.sort && f.sort !== 'id' ? SORT_KEYS[f.sort] : null;
    if (!sort) q.where('issues.id', '>', f.after);
    else {
      q.orderByRaw(`${sort.sql} ${sort.descending ? 'DESC' : 'ASC'}`);
      if (f.afterKey !== undefined) {
        const beyond = `${sort.sql} ${sort.descending ? '<' : '>'} ?`;
        q.where((w) => w.whereRaw(beyond, [f.afterKey!]).orWhere((same) => same.whereRaw(`${sort.sql} = ?`, [f.afterKey!]).where('issues.id', '>', f.after)));
      }
    }
    q.orderBy('issues.id');
    if (f.triage_status) q.where('issues.triage_status', f.triage_status);
    if (f.status) q.where('issues.status', f.status);
    if (f.severity) q.where('issues.severity', f.severity);
    if (f.type) q.where('issues.type', f.type);
    // kev is null while no KEV feed was ever synchronised: neither kev=true nor kev=false claims to know.
    if (f.kev !== undefined) q.where('issues.kev', f.kev);
    if (f.epss_min !== undefined) q.where('issues.epss', '>=', f.epss_min);
    if (f.unsettled) q.whereNotIn('issues.triage_status', SETTLED);
    // OWASP categories come with SAST rule metadata; imports and scans record none yet, so a filter on one finds nothing.
    if (f.owasp_category) q.whereRaw('1 = 0');
    if (f.repository_id !== undefined) q.where({ 'issues.target_kind': 'repository', 'issues.target_id': f.repository_id });
    if (f.container_id !== undefined) q.where({ 'issues.target_kind': 'container', 'issues.target_id': f.container_id });
    onVisibleTargets(this.db, q, visibility);
    const rows: IssueRow[] = await q;
    const windows = await this.windows();
    const items = rows.slice(0, f.limit).map((r) => issueView(r, windows));
    const last = rows.length > f.limit ? rows[f.limit - 1] : null;
    return { items, next: last ? { after: Number(last.id), afterKey: sort ? sort.of(last) : null } : null };
  }

  /** The row when the caller sees its target; 404 alike for unknown and unseen. */
  async visibleRow(principal: Principal, id: number): Promise<IssueRow> {
    const row: IssueRow | undefined = await this.db.knex('issues').where({ id }).first();
    if (row) {
      const target = await this.db.knex(TARGET_TABLE[row.target_kind]).where({ id: row.target_id }).first();
      const visibility = await this.visibilities.of(principal);
      if (target && visibility.canSee(row.target_kind, target)) return row;
    }
    throw refuse.notFound(`No issue ${id} is visible to you.`);
  }

  /** The stream key of an issue the caller sees (VisibleIssues); 404 alike for unknown and unseen. */
  async issueKeyOf(principal: Principal, id: number): Promise<string> {
    return (await this.visibleRow(principal, id)).issue_key;
  }

  /** One issue with its history: every lifecycle fact and decision on its stream, oldest first. */
  async get(principal: Principal, id: number) {
    const row = await this.visibleRow(principal, id);
    const events = await this.store.readStream(streams.issue(row.issue_key));
    const history = events.map((e) => {
      const d = e.data as Record<string, unknown>;
      const lifecycle = e.type === 'IssueDetected' || e.type === 'IssueResolved' || e.type === 'IssueReopened';
      return {
        revision: e.revision, type: e.type, at: (d.at as string) ?? e.metadata.at,
        // Entries of origin reopen (and every lifecycle fact) have actor null.
        // Decisions name the account as text (the triage domain's AccountId); answer the account id.
        actor: lifecycle ? null : ((a) => (a === null ? null : Number(a)))((d.actor as number | string | null | undefined) ?? e.metadata.actor ?? null),
        status: (d.status as string | undefined) ?? null, requestedStatus: (d.requestedStatus as string | undefined) ?? null,
        justification: (d.justification as string | undefined) ?? null, comment: (d.comment as string | undefined) ?? null,
        reviewDate: (d.reviewDate as string | undefined) ?? null, previousResolvedAt: (d.previousResolvedAt as string | undefined) ?? null,
      };
    });
    return { ...issueView(row, await this.windows()), history };
  }
}

/** Narrows a query on `issues` to the issues of targets the caller sees (nothing to add for an unrestricted administrator). */
export function onVisibleTargets(db: Database, q: Knex.QueryBuilder, visibility: Visibility): void {
  if (visibility.all && !visibility.restriction) return;
  q.where((w) => {
    w.whereIn(['issues.target_kind', 'issues.target_id'] as never, visibleTargets(db, visibility, 'repository') as never)
      .orWhereIn(['issues.target_kind', 'issues.target_id'] as never, visibleTargets(db, visibility, 'container') as never);
  });
}

/** (kind, id) of every target of a kind the caller sees, for `whereIn` on an issue's target (SQL, scopeToVisible). */
function visibleTargets(db: Database, visibility: Visibility, kind: TargetKind) {
  const table = TARGET_TABLE[kind];
  return scopeToVisible(visibility, db.knex(table).select(db.knex.raw(`'${kind}'`), `${table}.id`), kind);
}
