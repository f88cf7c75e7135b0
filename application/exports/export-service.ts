import { issueAsOf, targetAsOf, upTo } from '../../domain/exports/as-of';
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
    const { scope, targets } = await this.reads.scope(principal, kind, id);
    if (!asOf) {
      const issues: ExportIssue[] = [];
      for await (const page of this.reads.issues(targets)) for (const issue of page) issues.push(issue);
      return { scope, data: { targets, issues, inventory: [] }, timestamp: this.clock.now().toISOString() };
    }
    const instant = asOf.toISOString();
    if (asOf.getTime() > this.clock.now().getTime()) throw refuse.invalid(`as_of ${instant} is in the future; the log cannot answer for it yet.`);
    const atInstant = await this.targetsAsOf(principal, kind, id, instant);
    const issues: ExportIssue[] = [];
    const keys = await this.reads.issueKeys(atInstant);
    for (let i = 0; i < keys.length; i += 64) {
      const batch = await Promise.all(keys.slice(i, i + 64).map(async (key) => issueAsOf(upTo(dated(await this.store.readStream(streams.issue(key))), instant))));
      for (const issue of batch) if (issue) issues.push(issue);
    }
    return { scope, data: { targets: atInstant, issues, inventory: [] }, timestamp: instant };
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
    return {
      format: 'project-export', mediaType: 'application/json', timestamp, scope, targets: data.targets, schema: PROJECT_EXPORT_SCHEMA, version: PROJECT_EXPORT_VERSION,
      filename: `project-${id}-${timestamp.replace(/[-:.]/g, '')}.vigil-project-export.json`,
      pieces: projectExport(ctx, { id: project.id, name: project.name, solution: project.solution }, data.targets, data.issues, inventory),
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

  /** The scope's targets as they stood at the instant: registered by then, not deleted, in the project then. */
  private async targetsAsOf(principal: Principal, kind: ScopeKind, id: number, instant: string): Promise<ExportTarget[]> {
    const candidates = await this.reads.candidateTargets(principal, kind, id);
    const projects = new Set((await this.reads.scope(principal, kind, id)).projectIds);
    const found: ExportTarget[] = [];
    for (const c of candidates) {
      const target = targetAsOf(upTo(dated(await this.store.readStream(streams.target(c.kind, c.id))), instant));
      if (!target) continue;
      // A project's or solution's export holds the targets that were in (one of) its projects then.
      if ((kind === 'project' || kind === 'solution') && (target.projectId === null || !projects.has(target.projectId))) continue;
      found.push(target);
    }
    return found.sort((a, b) => (a.kind === b.kind ? a.id - b.id : a.kind < b.kind ? -1 : 1));
  }
}

const dated = (events: RecordedEvent[]) => events.map((e) => ({ type: e.type, data: e.data, at: e.metadata.at }));
