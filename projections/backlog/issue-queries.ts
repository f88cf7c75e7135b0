import { Knex } from 'knex';
import { owaspCategory } from '../../domain/backlog/owasp';
import { isSeverity, SEVERITIES, SEVERITY_RANK } from '../../domain/gate/severity';
import { refuse } from '../../domain/shared/decider';
import { streams } from '../../domain/shared/streams';
import type { TargetKind } from '../../domain/shared/target-kind';
import { DEFAULT_REMEDIATION_WINDOWS, remediationDeadline, RemediationWindows } from '../../domain/triage/remediation-deadline';
import type { Principal } from '../../application/identity/principal';
import type { Visibility, VisibilityReader } from '../../application/identity/visibility';
import type { EventStore } from '../../application/ports/event-store';
import type { VisibleIssues } from '../../application/triage/ports';
import { Database, type Engine } from '../../infrastructure/db/database';
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

export function issueView(r: IssueRow, windows: RemediationWindows = DEFAULT_REMEDIATION_WINDOWS, owaspCategories: readonly string[] = []) {
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
    // The OWASP Top 10 categories its rule names, normal form (A03:2021), sorted; [] for none (issue #16).
    owaspCategories: [...owaspCategories],
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
  /** An OWASP Top 10 category in normal form (A03:2021): the route normalised it (parseOwaspCategory). */
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
 * unscored last; first_seen: oldest first; deadline: earliest remediation deadline first, issues
 * without one last; id: as created.
 */
export const ISSUE_SORTS = ['id', 'severity', 'epss', 'first_seen', 'deadline'] as const;
export type IssueSort = (typeof ISSUE_SORTS)[number];

interface SortKey {
  /** The key as SQL on `issues`, with its bindings. */
  sql: string;
  bindings: readonly (string | number)[];
  descending: boolean;
  /** The key of a row as the SQL computes it: what the Link's after_key carries. */
  of: (r: IssueRow) => string | number;
}

/**
 * The sort key of an issue without a remediation deadline (a severity outside the four): after every
 * real deadline, which is an instant written by toISOString (fixed width, so text order is time order).
 */
export const NO_DEADLINE_KEY = '9999-12-31T23:59:59.999Z';

const DEADLINE_KEY = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/;

/**
 * The remediation deadline as SQL text, exactly as remediationDeadline() writes it in an answer:
 * first_seen_at (toISOString) plus the severity's window in whole UTC days, as `YYYY-MM-DDTHH:MM:SS.mmmZ`,
 * or NO_DEADLINE_KEY. Being the same text, it orders and compares as text on both engines, and the
 * Link's after_key is the remediationDeadline of the page's last issue.
 */
function deadlineSql(engine: Engine, windows: RemediationWindows): { sql: string; bindings: number[] } {
  const days = `CASE issues.severity ${SEVERITIES.map((s) => `WHEN '${s}' THEN CAST(? AS INTEGER)`).join(' ')} ELSE NULL END`;
  const bindings = SEVERITIES.map((s) => {
    if (!Number.isInteger(windows[s])) throw new Error(`remediation window of ${s} is not a whole number of days`);
    return windows[s];
  });
  const instant = engine === 'mysql'
    ? `CONCAT(LEFT(DATE_FORMAT(DATE_ADD(CAST(REPLACE(REPLACE(issues.first_seen_at, 'T', ' '), 'Z', '') AS DATETIME(3)), INTERVAL (${days.replace(/INTEGER/g, 'SIGNED')}) DAY), '%Y-%m-%dT%H:%i:%s.%f'), 23), 'Z')`
    : `to_char((issues.first_seen_at::timestamptz AT TIME ZONE 'UTC') + (${days}) * INTERVAL '1 day', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  return { sql: `COALESCE(${instant}, '${NO_DEADLINE_KEY}')`, bindings };
}

function sortKeyOf(sort: Exclude<IssueSort, 'id'>, engine: Engine, windows: RemediationWindows): SortKey {
  switch (sort) {
    case 'severity':
      return {
        sql: "(CASE issues.severity WHEN 'critical' THEN 4 WHEN 'high' THEN 3 WHEN 'medium' THEN 2 WHEN 'low' THEN 1 ELSE 0 END)", bindings: [], descending: true,
        of: (r) => (isSeverity(r.severity) ? SEVERITY_RANK[r.severity] : 0),
      };
    case 'epss': return { sql: 'COALESCE(issues.epss, -1)', bindings: [], descending: true, of: (r) => (r.epss === null || r.epss === undefined ? -1 : Number(r.epss)) };
    case 'first_seen': return { sql: 'issues.first_seen_at', bindings: [], descending: false, of: (r) => r.first_seen_at };
    case 'deadline':
      return {
        ...deadlineSql(engine, windows), descending: false,
        of: (r) => (isSeverity(r.severity) ? remediationDeadline(r.first_seen_at, r.severity, windows) : NO_DEADLINE_KEY),
      };
  }
}

/** Reads the sort key a Link carried (after_key) for `sort`; a refusal names what it must be. */
export function parseAfterKey(sort: Exclude<IssueSort, 'id'>, text: string): string | number {
  if (sort === 'severity' && /^[0-4]$/.test(text)) return Number(text);
  if (sort === 'epss' && /^-?[0-9]+(\.[0-9]+)?(e-?[0-9]+)?$/i.test(text) && Number(text) >= -1 && Number(text) <= 1) return Number(text);
  if (sort === 'first_seen' && /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?Z$/.test(text)) return text;
  if (sort === 'deadline' && DEADLINE_KEY.test(text)) return text;
  const expected = {
    severity: 'a severity rank from 0 to 4', epss: 'a score from -1 to 1', first_seen: 'an ISO-8601 UTC time',
    deadline: 'a remediation deadline as an ISO-8601 UTC time with milliseconds (YYYY-MM-DDTHH:MM:SS.mmmZ)',
  }[sort];
  throw refuse.invalid(`after_key must be ${expected} with sort=${sort}: copy it from the Link of the previous page.`);
}

/** The normal form of an owasp_category filter (A3:2017 or a03:2017 → A03:2017); a malformed code is refused (400). */
export function parseOwaspCategory(text: string): string {
  const category = owaspCategory(text);
  if (category === null) {
    throw refuse.invalid('owasp_category must be an OWASP Top 10 category code such as A03:2021 or A1:2017 (A, the rank 1 to 10, a colon, the edition\'s year).', { field: 'owasp_category' });
  }
  return category;
}

/**
 * GET /issues and GET /issues/{id}: the backlog as the caller may see it. Triage finds the issue it
 * decides on through the same visibility (VisibleIssues).
 */
export class IssueQueries implements VisibleIssues {
  constructor(private readonly db: Database, private readonly visibilities: VisibilityReader, private readonly store: EventStore, private readonly windows: () => Promise<RemediationWindows> = async () => DEFAULT_REMEDIATION_WINDOWS) {}

  async list(principal: Principal, f: IssueFilter) {
    const visibility = await this.visibilities.of(principal);
    const windows = await this.windows();
    const q = this.db.knex('issues').limit(f.limit + 1).select('issues.*');
    const sort = f.sort && f.sort !== 'id' ? sortKeyOf(f.sort, this.db.engine, windows) : null;
    if (!sort) q.where('issues.id', '>', f.after);
    else {
      q.orderByRaw(`${sort.sql} ${sort.descending ? 'DESC' : 'ASC'}`, [...sort.bindings]);
      if (f.afterKey !== undefined) {
        const beyond = `${sort.sql} ${sort.descending ? '<' : '>'} ?`;
        q.where((w) => w.whereRaw(beyond, [...sort.bindings, f.afterKey!])
          .orWhere((same) => same.whereRaw(`${sort.sql} = ?`, [...sort.bindings, f.afterKey!]).where('issues.id', '>', f.after)));
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
    // The categories SAST rules name (issue_owasp_categories, normal form: the route normalised the filter).
    if (f.owasp_category) q.whereIn('issues.id', this.db.knex('issue_owasp_categories').select('issue_id').where('category', f.owasp_category));
    if (f.repository_id !== undefined) q.where({ 'issues.target_kind': 'repository', 'issues.target_id': f.repository_id });
    if (f.container_id !== undefined) q.where({ 'issues.target_kind': 'container', 'issues.target_id': f.container_id });
    onVisibleTargets(this.db, q, visibility);
    const rows: IssueRow[] = await q;
    const page = rows.slice(0, f.limit);
    const categories = await this.owaspCategoriesOf(page.map((r) => Number(r.id)));
    const items = page.map((r) => issueView(r, windows, categories.get(Number(r.id))));
    const last = rows.length > f.limit ? rows[f.limit - 1] : null;
    return { items, next: last ? { after: Number(last.id), afterKey: sort ? sort.of(last) : null } : null };
  }

  /** The OWASP categories of these issues, by issue id, each list sorted (issues without any are absent). */
  private async owaspCategoriesOf(ids: readonly number[]): Promise<Map<number, string[]>> {
    const out = new Map<number, string[]>();
    if (ids.length === 0) return out;
    const rows: Array<{ issue_id: number; category: string }> = await this.db.knex('issue_owasp_categories')
      .whereIn('issue_id', [...ids]).orderBy(['issue_id', 'category']).select('issue_id', 'category');
    for (const r of rows) {
      const id = Number(r.issue_id);
      if (!out.has(id)) out.set(id, []);
      out.get(id)!.push(r.category);
    }
    return out;
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
    const categories = await this.owaspCategoriesOf([Number(row.id)]);
    return { ...issueView(row, await this.windows(), categories.get(Number(row.id))), history };
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
