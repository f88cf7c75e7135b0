import type { ExportReads, InventoryEntry } from '../../application/exports/ports';
import type { Principal } from '../../application/identity/principal';
import type { VisibilityReader } from '../../application/identity/visibility';
import type { ExportIssue, ExportScope, ExportTarget, ScopeKind } from '../../domain/exports/model';
import { refuse } from '../../domain/shared/decider';
import type { TargetKind } from '../../domain/shared/target-kind';
import type { TriageStatus } from '../../domain/triage/status';
import { Database } from '../../infrastructure/db/database';
import { epssScoresOf } from '../../infrastructure/feeds/epss-table';
import { scopeToVisible } from '../identity/visibility';
import { TARGET_TABLE } from '../targets/tables';
import { onVisibleTargets } from './issue-queries';

type Row = Record<string, any>;
const PAGE = 5000;
const ISSUE_COLUMNS = ['id', 'target_kind', 'target_id', 'type', 'tool_name', 'rule_id', 'path', 'line', 'severity', 'title', 'identifier', 'package_name', 'package_version', 'fixable', 'status', 'triage_status', 'justification', 'review_date', 'first_seen_at', 'kev', 'epss'];

function targetOf(kind: TargetKind, r: Row): ExportTarget {
  return {
    kind, id: Number(r.id), name: r.name, locator: kind === 'repository' ? r.url : r.image, branch: kind === 'repository' ? r.branch : null,
    projectId: r.project_id === null || r.project_id === undefined ? null : Number(r.project_id),
  };
}

export function exportIssueOf(r: Row): ExportIssue {
  return {
    id: Number(r.id), targetKind: r.target_kind, targetId: Number(r.target_id), type: r.type, toolName: r.tool_name, ruleId: r.rule_id, path: r.path,
    line: r.line === null ? null : Number(r.line), severity: r.severity, title: r.title, identifier: r.identifier, packageName: r.package_name,
    packageVersion: r.package_version, fixable: r.fixable === null ? null : Boolean(r.fixable), open: r.status === 'open',
    triageStatus: r.triage_status as TriageStatus, justification: r.justification, reviewDate: r.review_date, firstSeenAt: r.first_seen_at,
    kev: r.kev === null || r.kev === undefined ? null : Boolean(r.kev), epss: r.epss === null || r.epss === undefined ? null : Number(r.epss),
  };
}

/**
 * What the exports read (ExportReads): the scope and its visible targets (tables of projections/targets),
 * the issues of the `issues` table (projections/backlog) and the build components (projections/imports).
 * Unknown and unseen scopes answer 404 alike.
 */
export class SqlExportReads implements ExportReads {
  constructor(private readonly db: Database, private readonly visibilities: VisibilityReader) {}

  async scope(principal: Principal, kind: ScopeKind, id: number): Promise<{ scope: ExportScope; targets: ExportTarget[]; projectIds: number[] }> {
    const visibility = await this.visibilities.of(principal);
    const unseen = () => refuse.notFound(`No ${kind} ${id} is visible to you.`);
    const visibleTargets = async (projectIds: number[]) => {
      const found: ExportTarget[] = [];
      for (const k of ['repository', 'container'] as const) {
        const table = TARGET_TABLE[k];
        const rows: Row[] = await scopeToVisible(visibility, this.db.knex(table).whereIn(`${table}.project_id`, projectIds.length ? projectIds : [-1]).orderBy(`${table}.id`).select(`${table}.*`), k);
        found.push(...rows.map((r) => targetOf(k, r)));
      }
      return found;
    };
    if (kind === 'repository' || kind === 'container') {
      const row: Row | undefined = await this.db.knex(TARGET_TABLE[kind]).where({ id }).first();
      if (!row || !visibility.canSee(kind, { id: Number(row.id), project_id: row.project_id === null ? null : Number(row.project_id) })) throw unseen();
      return { scope: { kind, id, name: row.name }, targets: [targetOf(kind, row)], projectIds: [] };
    }
    if (kind === 'project') {
      const row: Row | undefined = await this.db.knex('projects').where({ id }).first();
      const targets = row ? await visibleTargets([id]) : [];
      if (!row || (!visibility.canSeeProject(id) && !targets.length)) throw unseen();
      return { scope: { kind, id, name: row.name }, targets, projectIds: [id] };
    }
    const row: Row | undefined = await this.db.knex('solutions').where({ id }).first();
    const projectIds = row ? (await this.db.knex('projects').where({ solution_id: id }).orderBy('id').select('id')).map((p: Row) => Number(p.id)) : [];
    const targets = row ? await visibleTargets(projectIds) : [];
    if (!row || (!projectIds.some((p) => visibility.canSeeProject(p)) && !targets.length)) throw unseen();
    return { scope: { kind, id, name: row.name }, targets, projectIds };
  }

  async placedTargets(principal: Principal, projectIds: readonly number[]) {
    const visibility = await this.visibilities.of(principal);
    const found: Array<{ kind: TargetKind; id: number; seen: (projectIdThen: number | null) => boolean }> = [];
    if (!projectIds.length) return found;
    const placed: Row[] = await this.db.knex('target_placements').whereIn('project_id', projectIds).distinct('target_kind', 'target_id').orderBy(['target_kind', 'target_id']);
    for (const kind of ['repository', 'container'] as const) {
      const ids = placed.filter((r) => r.target_kind === kind).map((r) => Number(r.target_id));
      const now = new Map<number, number | null>();
      for (let i = 0; i < ids.length; i += 500) {
        const rows: Row[] = await this.db.knex(TARGET_TABLE[kind]).whereIn('id', ids.slice(i, i + 500)).select('id', 'project_id');
        for (const r of rows) now.set(Number(r.id), r.project_id === null ? null : Number(r.project_id));
      }
      for (const targetId of ids) {
        const current = now.has(targetId) ? { id: targetId, project_id: now.get(targetId) ?? null } : null;
        found.push({ kind, id: targetId, seen: (then) => visibility.canSee(kind, { id: targetId, project_id: then }) || (current !== null && visibility.canSee(kind, current)) });
      }
    }
    return found;
  }

  async *issues(targets: readonly ExportTarget[]): AsyncIterable<ExportIssue[]> {
    for (const kind of ['repository', 'container'] as const) {
      const ids = targets.filter((t) => t.kind === kind).map((t) => t.id);
      for (let i = 0; i < ids.length; i += 500) {
        const chunk = ids.slice(i, i + 500);
        // Keyset pages by id: a large backlog is read in bounded pieces.
        for (let after = 0; ;) {
          const rows: Row[] = await this.db.knex('issues').where({ target_kind: kind }).whereIn('target_id', chunk).where('id', '>', after)
            .orderBy('id').limit(PAGE).select(ISSUE_COLUMNS);
          if (!rows.length) break;
          yield rows.map(exportIssueOf);
          after = Number(rows[rows.length - 1].id);
          if (rows.length < PAGE) break;
        }
      }
    }
  }

  async issueKeys(targets: readonly ExportTarget[]): Promise<string[]> {
    const keys: string[] = [];
    for (const kind of ['repository', 'container'] as const) {
      const ids = targets.filter((t) => t.kind === kind).map((t) => t.id);
      for (let i = 0; i < ids.length; i += 500) {
        const rows: Row[] = await this.db.knex('issues').where({ target_kind: kind }).whereIn('target_id', ids.slice(i, i + 500)).orderBy('id').select('issue_key');
        keys.push(...rows.map((r) => r.issue_key));
      }
    }
    return keys;
  }

  async matchingIssues(principal: Principal, vulnerabilityIds: readonly string[], target: { kind: TargetKind; id: number } | null = null) {
    const visibility = await this.visibilities.of(principal);
    // Ids as suppliers write them and as Vigil stores them: CVE upper case, GHSA as GitHub writes it, and as given.
    const spellings = [...new Set(vulnerabilityIds.flatMap((id) => [id, id.toUpperCase(), id.toLowerCase(), /^ghsa-/i.test(id) ? `GHSA${id.slice(4).toLowerCase()}` : id]))];
    const found: Array<ExportIssue & { revision: number }> = [];
    for (let i = 0; i < spellings.length; i += 500) {
      const chunk = spellings.slice(i, i + 500);
      const q = this.db.knex('issues').where('issues.status', 'open').where((w) => w.whereIn('issues.identifier', chunk).orWhereIn('issues.rule_id', chunk))
        .orderBy('issues.id').select([...ISSUE_COLUMNS.map((c) => `issues.${c}`), 'issues.revision']);
      if (target) q.where({ 'issues.target_kind': target.kind, 'issues.target_id': target.id });
      onVisibleTargets(this.db, q, visibility);
      for (const r of (await q) as Row[]) found.push({ ...exportIssueOf(r), revision: Number(r.revision) });
    }
    return [...new Map(found.map((f) => [f.id, f])).values()];
  }

  async project(principal: Principal, id: number) {
    const row: Row | undefined = await this.db.knex('projects').where({ id }).first();
    if (!row) throw refuse.notFound(`No project ${id} is visible to you.`);
    const solution: Row | undefined = row.solution_id === null ? undefined : await this.db.knex('solutions').where({ id: row.solution_id }).first();
    const visibility = await this.visibilities.of(principal);
    const whole = visibility.canSeeProject(id) && !visibility.restriction;
    return { id, name: row.name as string, solution: solution ? { id: Number(solution.id), name: solution.name as string } : null, whole };
  }

  epssScores(generation: number, cves: readonly string[]): Promise<Map<string, number>> {
    return epssScoresOf(this.db, generation, cves);
  }

  async buildInventory(target: ExportTarget, asOf: string | null): Promise<InventoryEntry[]> {
    if (target.kind !== 'repository') return [];
    // The newest build SBOM of the branch, or one stated for every branch (S1.4.3-56, -57).
    const q = this.db.knex('build_sbom_imports').where({ repository_id: target.id }).where((w) => w.where({ branch: target.branch }).orWhereNull('branch'));
    if (asOf) q.where('created_at', '<=', asOf);
    const newest: Row | undefined = await q.orderBy('id', 'desc').first('id');
    if (!newest) return [];
    const rows: Row[] = await this.db.knex('build_sbom_components').where({ import_id: newest.id }).orderBy('ordinal').select('name', 'version', 'purl', 'type', 'source');
    return rows.map((r) => ({ name: r.name, version: r.version ?? null, purl: r.purl ?? null, type: r.type, source: r.source }));
  }
}
