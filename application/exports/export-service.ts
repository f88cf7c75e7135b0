import { enrichmentAsOf, issueAsOf, portfolioAsOf, targetAsOf, upTo } from '../../domain/exports/as-of';
import { csafVex } from '../../domain/exports/csaf';
import { cycloneDxSbom, mergeInventory, type SbomComponent } from '../../domain/exports/cyclonedx-sbom';
import { sarifLog } from '../../domain/exports/sarif';
import { cycloneDxVex } from '../../domain/exports/cyclonedx-vex';
import { vexStatements, type DocumentContext, type ExportIssue, type ExportScope, type ExportTarget, type ScopeKind } from '../../domain/exports/model';
import { openVex } from '../../domain/exports/openvex';
import { projectExport, PROJECT_EXPORT_SCHEMA, PROJECT_EXPORT_VERSION, type ProjectInventoryEntry } from '../../domain/exports/project-export';
import { refuse } from '../../domain/shared/decider';
import { streams } from '../../domain/shared/streams';
import type { RecordedEvent } from '../../domain/shared/event-envelope';
import type { Principal } from '../identity/principal';
import type { Clock } from '../ports/clock';
import type { EventStore } from '../ports/event-store';
import type { ExportReads } from './ports';
import { issuePurl, normalisePurl } from './purls';

/** What every export format knows of itself: its media type, its file name's ending, the scopes it covers, how it is written. */
interface FormatSpec {
  mediaType: string;
  extension: string;
  scopes: readonly ScopeKind[];
  /** The target's inventory is read for it (the SBOM). */
  inventory?: boolean;
  write(ctx: DocumentContext, data: ExportData): Iterable<string>;
}

/** What a document is written from: the scope's targets and their issues at the instant. */
export interface ExportData {
  targets: readonly ExportTarget[];
  issues: readonly ExportIssue[];
  /** Build and scanner components, merged (only for a format that asks for them). */
  inventory: readonly SbomComponent[];
}

const ALL_SCOPES: readonly ScopeKind[] = ['repository', 'container', 'project', 'solution'];
const TARGETS: readonly ScopeKind[] = ['repository', 'container'];
const byKey = (targets: readonly ExportTarget[]) => new Map(targets.map((t) => [`${t.kind}-${t.id}`, t]));
const statementsOf = (data: ExportData) => vexStatements(data.issues, byKey(data.targets), issuePurl);

export const EXPORT_FORMATS = {
  'cyclonedx-vex': { mediaType: 'application/vnd.cyclonedx+json; version=1.6', extension: 'cdx.json', scopes: ALL_SCOPES, write: (ctx, d) => cycloneDxVex(ctx, statementsOf(d)) },
  openvex: { mediaType: 'application/json', extension: 'openvex.json', scopes: ALL_SCOPES, write: (ctx, d) => openVex(ctx, statementsOf(d)) },
  'csaf-vex': { mediaType: 'application/json', extension: 'csaf.json', scopes: ALL_SCOPES, write: (ctx, d) => csafVex(ctx, statementsOf(d)) },
  'cyclonedx-sbom': { mediaType: 'application/vnd.cyclonedx+json; version=1.6', extension: 'sbom.cdx.json', scopes: TARGETS, inventory: true, write: (ctx, d) => cycloneDxSbom(ctx, d.inventory) },
  sarif: { mediaType: 'application/sarif+json', extension: 'sarif', scopes: TARGETS, write: (ctx, d) => sarifLog(ctx, d.issues) },
} satisfies Record<string, FormatSpec>;

export type ExportFormat = keyof typeof EXPORT_FORMATS;
export const VEX_FORMATS: readonly ExportFormat[] = ['cyclonedx-vex', 'openvex', 'csaf-vex'];

/** A document ready to be signed and served: its text in pieces, never one large string. */
export interface ExportDocument {
  /** An export format, or project-export. */
  format: string;
  mediaType: string;
  filename: string;
  /** The instant it answers for. */
  timestamp: string;
  scope: ExportScope;
  pieces: Iterable<string>;
}

export interface ExportSettings {
  author: string;
  brand: string;
  version: string;
  publicUrl: string | null;
}

const SCOPE_PATH: Record<ScopeKind, string> = { repository: 'repositories', container: 'containers', project: 'projects', solution: 'solutions' };

/**
 * Exports of spec 1 §1.9 (issue #11): the scope and its targets as the caller sees them, their issues
 * from the read model or, with as_of, folded from the event log up to that instant, written by the
 * pure serialisers of domain/exports. The same as_of gives the same bytes: every row is sorted, every
 * identifier is derived from the scope and the instant, and nothing reads the clock then.
 */
export class ExportService {
  constructor(private readonly reads: ExportReads, private readonly store: EventStore, private readonly clock: Clock, private readonly settings: ExportSettings) {}

  async document(principal: Principal, kind: ScopeKind, id: number, format: ExportFormat, asOf: Date | null): Promise<ExportDocument> {
    const spec: FormatSpec = EXPORT_FORMATS[format];
    if (!spec.scopes.includes(kind)) throw refuse.notFound(`${format} is not exported for a ${kind}.`);
    const { scope, data, timestamp } = await this.data(principal, kind, id, asOf);
    if (spec.inventory) data.inventory = await this.inventory(data, timestamp, asOf !== null);
    const path = `/${SCOPE_PATH[kind]}/${id}/exports/${format}`;
    const ctx: DocumentContext = { scope, timestamp, author: this.settings.author, brand: this.settings.brand, version: this.settings.version, publicUrl: this.settings.publicUrl, path };
    return {
      format, mediaType: spec.mediaType, timestamp, scope, pieces: spec.write(ctx, data),
      filename: `${kind}-${id}-${timestamp.replace(/[-:.]/g, '')}.${spec.extension}`,
    };
  }

  /** The scope's targets and issues now (read model) or at `asOf` (event log). */
  async data(principal: Principal, kind: ScopeKind, id: number, asOf: Date | null): Promise<{ scope: ExportScope; data: { targets: ExportTarget[]; issues: ExportIssue[]; inventory: SbomComponent[] }; timestamp: string }> {
    // Who may ask is judged now, as for every read (404 alike for unknown and unseen).
    const now = await this.reads.scope(principal, kind, id);
    if (!asOf) {
      const issues: ExportIssue[] = [];
      for await (const page of this.reads.issues(now.targets)) for (const issue of page) issues.push(issue);
      return { scope: now.scope, data: { targets: now.targets, issues, inventory: [] }, timestamp: this.clock.now().toISOString() };
    }
    const instant = asOf.toISOString();
    if (asOf.getTime() > this.clock.now().getTime()) throw refuse.invalid(`as_of ${instant} is in the future; the log cannot answer for it yet.`);
    const { scope, targets } = await this.scopeAsOf(principal, kind, id, now.projectIds, instant);
    const issues: ExportIssue[] = [];
    const keys = await this.reads.issueKeys(targets);
    for (let i = 0; i < keys.length; i += 1000) {
      const names = keys.slice(i, i + 1000).map((key) => streams.issue(key));
      // One statement per thousand streams where the log can (the SQL table), else one read each, 64 at a time.
      const read = this.store.readStreams ? await this.store.readStreams(names) : await this.oneByOne(names);
      for (const name of names) {
        const issue = issueAsOf(upTo(dated(read.get(name) ?? []), instant));
        if (issue) issues.push(issue);
      }
    }
    await this.enrichAsOf(issues, instant);
    return { scope, data: { targets, issues, inventory: [] }, timestamp: instant };
  }

  /**
   * The project export vigil-project-export 1.1 (spec 2 §2.6, §9) for somebody who sees the whole
   * project (a grant of the project; targets alone are not the project): 404 otherwise, as for an unknown one.
   */
  async projectExport(principal: Principal, id: number, asOf: Date | null): Promise<ExportDocument & { targets: ExportTarget[]; schema: string; version: string }> {
    const project = await this.reads.project(principal, id);
    if (!project.whole) throw refuse.notFound(`No project ${id} is visible to you.`);
    const { scope, data, timestamp } = await this.data(principal, 'project', id, asOf);
    const inventory: ProjectInventoryEntry[] = [];
    for (const target of data.targets) {
      const own = { ...data, targets: [target], issues: data.issues.filter((i) => i.targetKind === target.kind && i.targetId === target.id) };
      for (const c of await this.inventory(own, timestamp, asOf !== null)) inventory.push({ ...c, targetKind: target.kind, targetId: target.id });
    }
    const ctx: DocumentContext = { scope, timestamp, author: this.settings.author, brand: this.settings.brand, version: this.settings.version, publicUrl: this.settings.publicUrl, path: `/projects/${id}/export` };
    const named = asOf ? await this.projectAsOf(id, timestamp) : { id: project.id, name: project.name, solution: project.solution };
    return {
      format: 'project-export', mediaType: 'application/json', timestamp, scope, targets: data.targets, schema: PROJECT_EXPORT_SCHEMA, version: PROJECT_EXPORT_VERSION,
      filename: `project-${id}-${timestamp.replace(/[-:.]/g, '')}.vigil-project-export.json`,
      pieces: projectExport(ctx, named, data.targets, data.issues, inventory),
    };
  }

  /**
   * A target's inventory (spec 1 §4.3): the components of its newest build SBOM (as of the instant) and
   * the packages its open dependency findings name (what the scanners saw), merged by purl.
   */
  private async inventory(data: ExportData, timestamp: string, pinned: boolean): Promise<SbomComponent[]> {
    const build: SbomComponent[] = [];
    for (const target of data.targets) {
      for (const c of await this.reads.buildInventory(target, pinned ? timestamp : null)) build.push({ ...c, purl: normalisePurl(c.purl) ?? c.purl });
    }
    const scanner: SbomComponent[] = [];
    for (const issue of data.issues) {
      const purl = issue.open && (issue.packageName || issue.path.startsWith('pkg:')) ? issuePurl(issue) : null;
      if (purl) scanner.push({ name: issue.packageName ?? purl, version: issue.packageVersion, purl, type: 'library', source: 'scanner' });
    }
    return mergeInventory(build, scanner);
  }

  private async oneByOne(names: readonly string[]): Promise<Map<string, RecordedEvent[]>> {
    const read = new Map<string, RecordedEvent[]>();
    for (let i = 0; i < names.length; i += 64) {
      const part = names.slice(i, i + 64);
      const events = await Promise.all(part.map((name) => this.store.readStream(name)));
      part.forEach((name, n) => read.set(name, events[n]));
    }
    return read;
  }

  /**
   * The scope as it stood at the instant, all from the log: a target's own stream (its name, place and
   * whether it existed), a project's or solution's stream (name; 404 when not created by then), and for
   * a project or solution every target ever placed in its projects (target_placements) folded to the
   * instant, kept when it was in one of them then. The caller's sight is judged now.
   */
  private async scopeAsOf(principal: Principal, kind: ScopeKind, id: number, projectIdsNow: readonly number[], instant: string): Promise<{ scope: ExportScope; targets: ExportTarget[] }> {
    if (kind === 'repository' || kind === 'container') {
      const target = targetAsOf(upTo(dated(await this.store.readStream(streams.target(kind, id))), instant));
      if (!target) throw refuse.notFound(`The ${kind} ${id} was not registered at ${instant}.`);
      return { scope: { kind, id, name: target.name }, targets: [target] };
    }
    const own = await this.portfolioAsOf(kind, id, instant);
    if (!own) throw refuse.notFound(`The ${kind} ${id} did not exist at ${instant}.`);
    // A solution's projects: those that name it and existed then (a project's solution never changes once created).
    const projects: number[] = [];
    if (kind === 'project') projects.push(id);
    else for (const p of projectIdsNow) if (await this.portfolioAsOf('project', p, instant)) projects.push(p);
    const inScope = new Set(projects);
    const found: ExportTarget[] = [];
    for (const c of await this.reads.placedTargets(principal, projects)) {
      const target = targetAsOf(upTo(dated(await this.store.readStream(streams.target(c.kind, c.id))), instant));
      if (!target || target.projectId === null || !inScope.has(target.projectId) || !c.seen(target.projectId)) continue;
      found.push(target);
    }
    found.sort((a, b) => (a.kind === b.kind ? a.id - b.id : a.kind < b.kind ? -1 : 1));
    return { scope: { kind, id, name: own.name }, targets: found };
  }

  /** KEV and EPSS of each issue as the feeds in use at the instant gave them (the feed streams folded, the generation's scores). */
  private async enrichAsOf(issues: ExportIssue[], instant: string): Promise<void> {
    const folded = async (feed: string) => upTo(dated(await this.store.readStream(streams.feed(feed))), instant);
    const { kevListed, epssGeneration } = enrichmentAsOf(await folded('kev'), await folded('epss'));
    const cves = [...new Set(issues.map((i) => i.identifier).filter((c): c is string => c !== null))];
    const scores = epssGeneration === null ? new Map<string, number>() : await this.reads.epssScores(epssGeneration, cves);
    for (const issue of issues) {
      issue.kev = kevListed === null ? null : issue.identifier !== null && kevListed.has(issue.identifier);
      issue.epss = epssGeneration === null || issue.identifier === null ? null : scores.get(issue.identifier) ?? null;
    }
  }

  private async portfolioAsOf(kind: 'project' | 'solution', id: number, instant: string) {
    return portfolioAsOf(upTo(dated(await this.store.readStream(kind === 'project' ? streams.project(id) : streams.solution(id))), instant));
  }

  /** A project's name and solution (id and name) at the instant, for the project export. */
  private async projectAsOf(id: number, instant: string): Promise<{ id: number; name: string; solution: { id: number; name: string } | null }> {
    const project = await this.portfolioAsOf('project', id, instant);
    if (!project) throw refuse.notFound(`The project ${id} did not exist at ${instant}.`);
    const solution = project.solutionId === null ? null : await this.portfolioAsOf('solution', project.solutionId, instant);
    return { id, name: project.name, solution: project.solutionId === null || !solution ? null : { id: project.solutionId, name: solution.name } };
  }
}

const dated = (events: RecordedEvent[]) => events.map((e) => ({ type: e.type, data: e.data, at: e.metadata.at }));
