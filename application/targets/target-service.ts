import { scopeToVisible } from '../../projections/identity/visibility';
import { CredentialRef, projectLanguages, scheduleView, TargetCommand, targetDecider, TargetEvent, TargetKeyEvent, targetKeyDecider, TargetPatch, TargetState } from '../../domain/targets';
import { TargetKind } from '../../domain/shared/target-kind';
import { isAdministrator, writes } from '../../domain/identity/roles';
import { portfolioDecider } from '../../domain/portfolio/portfolio';
import { DomainError, refuse } from '../../domain/shared/decider';
import { Config } from '../../infrastructure/config/config';
import { Database } from '../../infrastructure/db/database';
import { CommandHandler, RequestContext } from '../command-handler';
import { IdentityService } from '../identity/identity-service';
import { Principal } from '../identity/principal';
import { Visibility, VisibilityReader } from '../identity/visibility';
import { TARGET_TABLE } from '../../projections/targets/tables';
import { TARGET_NOUN } from '../../domain/shared/target-kind';
import { IdGenerator } from '../ports/ids';
import { WrongExpectedRevision } from '../ports/event-store';
import { SettingsService } from '../settings/settings-service';
import { CredentialLinks, StreamAppendPlan } from '../credentials/credential-links';
import { CloneUrlCheck, CloneUrlVerdict } from '../ports/clone-url-check';
import { streams } from '../../domain/shared/streams';

export interface TargetRow {
  id: number; url?: string; identity?: string; uniqueness_key?: string; branch?: string; sub_path?: string; image?: string; detected_languages?: string | null;
  name: string; project_id: number | null; scan_manual_only: boolean | number; scan_interval_minutes: number | null; scan_cron: string | null;
  last_scheduled_scan_at: string | null; created_at: string; updated_at: string;
  credential_id?: number | null; credential_kind?: string | null;
}

/** sshKeyId / httpsTokenId of a request (the names spec 2 uses for forge imports): at most one; null clears. */
export interface CredentialFields { sshKeyId?: number | null; httpsTokenId?: number | null }

function credentialOf(body: CredentialFields): CredentialRef | null | undefined {
  const { sshKeyId: ssh, httpsTokenId: https } = body;
  if (ssh != null && https != null) throw refuse.invalid('Name at most one of sshKeyId and httpsTokenId: a repository clones with one credential.');
  if (ssh != null) return { id: ssh, kind: 'ssh_key' };
  if (https != null) return { id: https, kind: 'https_token' };
  return ssh === null || https === null ? null : undefined;
}

/** How long the entry check waits for DNS before leaving the question to the scan-time check. */
const GUARD_TIMEOUT_MS = 5_000;

export interface Page<T> { items: T[]; next: number | null }

/**
 * Repositories and container images (spec 1 §2.1, §4.2), solutions and projects. Registration
 * reserves the repository's (identity, branch, sub-path) key on its own stream in the same commit
 * as the target (trap 4), so two instances racing register it once.
 */
export class TargetService {
  private readonly links: CredentialLinks;

  constructor(
    private readonly db: Database,
    private readonly visibilities: VisibilityReader,
    private readonly commands: CommandHandler,
    private readonly ids: IdGenerator,
    private readonly identity: IdentityService,
    private readonly settings: SettingsService,
    private readonly config: Config,
    /** The clone guard, asked on entry (spec 1 §8.3); null: not checked here (the executor still checks before each scan). */
    private readonly cloneGuard: CloneUrlCheck | null = null,
  ) {
    this.links = new CredentialLinks(commands);
  }

  // ---- queries -----------------------------------------------------------------------------

  async view(kind: TargetKind, row: TargetRow) {
    const defaultDays = await this.settings.get<number>('scan_default_interval_days');
    return this.toView(kind, row, defaultDays);
  }

  private toView(kind: TargetKind, row: TargetRow, defaultDays: number) {
    const schedule = { scanManualOnly: Boolean(row.scan_manual_only), scanIntervalMinutes: row.scan_interval_minutes === null ? null : Number(row.scan_interval_minutes), scanCron: row.scan_cron };
    const common = {
      id: Number(row.id), name: row.name, projectId: row.project_id === null ? null : Number(row.project_id), ...schedule,
      schedule: scheduleView(schedule, defaultDays), lastScheduledScanAt: row.last_scheduled_scan_at, createdAt: row.created_at, updatedAt: row.updated_at,
    };
    if (kind === 'container') return { ...common, image: row.image! };
    const credentialId = row.credential_id == null ? null : Number(row.credential_id);
    return {
      ...common, url: row.url!, identity: row.identity!, branch: row.branch!, subPath: row.sub_path!,
      detectedLanguages: row.detected_languages ? JSON.parse(row.detected_languages) : null,
      sshKeyId: row.credential_kind === 'ssh_key' ? credentialId : null, httpsTokenId: row.credential_kind === 'https_token' ? credentialId : null,
    };
  }

  async list(principal: Principal, kind: TargetKind, limit: number, after: number) {
    const visibility = await this.visibilities.of(principal);
    const q = this.db.knex(TARGET_TABLE[kind]).where(`${TARGET_TABLE[kind]}.id`, '>', after).orderBy(`${TARGET_TABLE[kind]}.id`).limit(limit + 1);
    const rows: TargetRow[] = await scopeToVisible(visibility, q, kind);
    const defaultDays = await this.settings.get<number>('scan_default_interval_days');
    const items = rows.slice(0, limit).map((r) => this.toView(kind, r, defaultDays));
    return { items, next: rows.length > limit ? items[items.length - 1].id : null };
  }

  /** The row when the caller sees it; 404 alike for unknown and unseen (spec 1 §7). */
  async visibleRow(principal: Principal, kind: TargetKind, id: number): Promise<TargetRow> {
    const row: TargetRow | undefined = await this.db.knex(TARGET_TABLE[kind]).where({ id }).first();
    const visibility = await this.visibilities.of(principal);
    if (!row || !visibility.canSee(kind, row)) throw refuse.notFound(`No ${TARGET_NOUN[kind]} ${id} is visible to you.`);
    return row;
  }

  async get(principal: Principal, kind: TargetKind, id: number) {
    return this.view(kind, await this.visibleRow(principal, kind, id));
  }

  /** GET /repositories/duplicates: groups sharing an identity, oldest first (administrators). */
  async duplicates() {
    const groups: { identity: string }[] = await this.db.knex('repositories').select('identity').groupBy('identity').havingRaw('count(*) > 1');
    const result = [];
    for (const g of groups) {
      const rows: TargetRow[] = await this.db.knex('repositories').where({ identity: g.identity }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
      result.push({ identity: g.identity, repositories: await Promise.all(rows.map((r) => this.view('repository', r))) });
    }
    return result.sort((a, b) => (a.repositories[0].createdAt < b.repositories[0].createdAt ? -1 : 1));
  }

  // ---- commands ----------------------------------------------------------------------------

  async register(ctx: RequestContext, principal: Principal, kind: TargetKind, body: Record<string, unknown>) {
    await this.checkMayWrite(principal, body.projectId as number | null | undefined, true);
    const credential = credentialOf(body as CredentialFields);
    if (credential) this.checkMayNameCredential(principal);
    const id = await this.ids.next(kind);
    const base = { id, actor: String(principal.accountId), now: ctx.now, name: body.name as string | undefined, projectId: (body.projectId ?? null) as number | null, scanManualOnly: body.scanManualOnly as boolean | undefined, scanIntervalMinutes: body.scanIntervalMinutes as number | null | undefined, scanCron: body.scanCron as string | null | undefined };
    const command: TargetCommand = kind === 'repository'
      ? { type: 'RegisterRepository', ...base, url: body.url as string, branch: body.branch as string | undefined, subPath: body.subPath as string | undefined, credential }
      : { type: 'RegisterContainer', ...base, image: body.image as string };
    const events = targetDecider.decide(command, targetDecider.initialState());
    const repository = kind === 'repository' ? (events[0].data as { uniquenessKey: string; url: string }) : null;
    if (repository) await this.checkCloneGuard(repository.url);
    const links = repository && credential ? () => this.links.appends(ctx, id, repository.url, null, credential, true) : null;
    await this.appendWithReservations(ctx, principal, streams.target(kind, id), events, 'no_stream', repository ? { reserve: repository.uniquenessKey, release: null, targetId: id } : null, links);
    return this.view(kind, await this.visibleRow({ ...principal, roles: ['administrator'], restriction: null }, kind, id));
  }

  async update(ctx: RequestContext, principal: Principal, kind: TargetKind, id: number, body: TargetPatch & CredentialFields) {
    const row = await this.visibleRow(principal, kind, id);
    const { sshKeyId: _ssh, httpsTokenId: _https, ...fields } = body;
    const credential = credentialOf(body);
    const patch: TargetPatch = credential === undefined ? fields : { ...fields, credential };
    await this.checkMayWrite(principal, patch.projectId !== undefined ? patch.projectId : row.project_id, patch.projectId !== undefined);
    if (credential !== undefined) this.checkMayNameCredential(principal);
    if (row.credential_id != null && patch.url !== undefined && patch.url.trim() !== row.url && !isAdministrator(principal.roles)) {
      throw refuse.forbidden('Only an administrator changes the URL of a repository that clones with a stored credential: the credential would follow the URL.');
    }
    let guarded = false;
    for (let attempt = 0; ; attempt++) {
      const { state, revision } = await this.commands.load<TargetEvent, TargetState>(streams.target(kind, id), targetDecider);
      const events = targetDecider.decide({ type: 'UpdateTarget', id, actor: String(principal.accountId), now: ctx.now, changes: patch }, state);
      if (events.length === 0) break;
      const data = events[0].data as { uniquenessKey?: { previous: string; current: string }; changes: { url?: string; credential?: CredentialRef | null } };
      const moved = data.uniquenessKey;
      const target = (state as Extract<TargetState, { target: unknown }>).target;
      const url = data.changes.url ?? (target.kind === 'repository' ? target.url : '');
      if (data.changes.url !== undefined && !guarded) {
        await this.checkCloneGuard(data.changes.url);
        guarded = true;
      }
      const previous = target.kind === 'repository' ? target.credential ?? null : null;
      const next = data.changes.credential === undefined ? previous : data.changes.credential;
      const links = previous || next ? () => this.links.appends(ctx, id, url, previous, next, data.changes.url !== undefined) : null;
      try {
        await this.appendWithReservations(ctx, principal, streams.target(kind, id), events, revision ?? 'no_stream', moved ? { reserve: moved.current, release: moved.previous, targetId: id } : null, links);
        break;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision) || attempt >= 3) throw error;
      }
    }
    return this.get({ ...principal, roles: ['administrator'], restriction: null }, kind, id);
  }

  async delete(ctx: RequestContext, principal: Principal, kind: TargetKind, id: number): Promise<void> {
    const row = await this.visibleRow(principal, kind, id);
    await this.checkMayWrite(principal, row.project_id, false);
    const { state, revision } = await this.commands.load<TargetEvent, TargetState>(streams.target(kind, id), targetDecider);
    const events = targetDecider.decide({ type: 'DeleteTarget', id, actor: String(principal.accountId), now: ctx.now }, state);
    const key = (events[0].data as { uniquenessKey: string | null }).uniquenessKey;
    const target = (state as Extract<TargetState, { target: unknown }>).target;
    const credential = target.kind === 'repository' ? target.credential ?? null : null;
    const links = credential && target.kind === 'repository' ? () => this.links.appends(ctx, id, target.url, credential, null, false) : null;
    await this.appendWithReservations(ctx, principal, streams.target(kind, id), events, revision ?? 'no_stream', key ? { reserve: null, release: key, targetId: id } : null, links);
    await this.identity.revokeKeysRestrictedTo(ctx, kind, id);
  }

  private async appendWithReservations(
    ctx: RequestContext, principal: Principal, stream: string, events: TargetEvent[], expected: number | 'no_stream',
    keys: { reserve: string | null; release: string | null; targetId: number } | null,
    /** The credential streams to append in the same commit (re-read on every attempt). */
    links: (() => Promise<StreamAppendPlan[]>) | null = null,
  ): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const appends: Array<{ stream: string; events: TargetKeyEvent[] | TargetEvent[] | StreamAppendPlan['events']; expectedRevision: StreamAppendPlan['expectedRevision'] }> = [];
      if (links) appends.push(...(await links()));
      try {
        for (const [key, type] of [[keys?.reserve, 'Reserve'], [keys?.release, 'Release']] as const) {
          if (!key) continue;
          const { state, revision } = await this.commands.load(streams.targetKey(key), targetKeyDecider);
          const decided = targetKeyDecider.decide({ type, key, targetId: keys!.targetId }, state);
          appends.push({ stream: streams.targetKey(key), events: decided, expectedRevision: revision ?? 'no_stream' });
        }
      } catch (error) {
        throw await this.shapeConflict(principal, error);
      }
      appends.push({ stream, events, expectedRevision: expected });
      try {
        await this.commands.appendAll(appends, ctx);
        return;
      } catch (error) {
        // Lost a race for the key: read it again, which names the winner.
        if (!(error instanceof WrongExpectedRevision) || attempt >= 3 || error.stream === stream) throw error;
      }
    }
  }

  /**
   * The clone guard on entry (spec 1 §8.3, S1.8.3-33): a URL it refuses for good (scheme, host not
   * allowed, metadata or link-local address after resolution) is 400 and nothing is written. A name
   * that does not resolve now, or not within GUARD_TIMEOUT_MS, is accepted: the scanning host may see
   * other DNS, and the guard runs again before each scan (there a refusal fails the scan).
   */
  private async checkCloneGuard(url: string): Promise<void> {
    if (!this.cloneGuard) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<CloneUrlVerdict>((resolve) => {
      timer = setTimeout(() => resolve({ allowed: false, permanent: false, reason: 'DNS did not answer in time' }), GUARD_TIMEOUT_MS);
      timer.unref?.();
    });
    const verdict = await Promise.race([this.cloneGuard.check(url), timeout]).finally(() => clearTimeout(timer));
    if (!verdict.allowed && verdict.permanent) throw refuse.invalid(verdict.reason);
  }

  /**
   * Naming a stored credential on a repository is an administrator's act: the credential would
   * clone whatever the URL names on its host (spec 2 §4.1 has administrators import with credentials).
   */
  private checkMayNameCredential(principal: Principal): void {
    if (!isAdministrator(principal.roles)) {
      throw refuse.forbidden('Only an administrator names a stored credential (sshKeyId, httpsTokenId) on a repository.');
    }
  }

  /** 409 target-already-registered names the existing target only when the caller sees it (spec 1 §7). */
  private async shapeConflict(principal: Principal, error: unknown): Promise<unknown> {
    if (!(error instanceof DomainError) || error.problemType !== 'target-already-registered') return error;
    const existing = Number(error.extensions.existingRepositoryId);
    const row = await this.db.knex('repositories').where({ id: existing }).first();
    const visibility = await this.visibilities.of(principal);
    if (row && visibility.canSee('repository', row)) {
      return refuse.conflict(`Repository ${existing} is already registered with this URL, branch and sub-path.`, 'target-already-registered', { existingRepositoryId: existing });
    }
    return refuse.conflict('A repository with this URL, branch and sub-path is already registered.', 'target-already-registered');
  }

  /**
   * Registering and changing targets is for accounts that write. An administrator may place a
   * target anywhere; anyone else only in a project one of their teams is granted, so that they
   * keep seeing what they register.
   */
  private async checkMayWrite(principal: Principal, projectId: number | null | undefined, naming: boolean): Promise<void> {
    if (!writes(principal.roles)) throw refuse.forbidden('Only an account that writes (administrator, CISO, security lead, writer) registers or changes targets.');
    if (projectId !== null && projectId !== undefined) {
      const project = await this.db.knex('projects').where({ id: projectId }).first();
      const visibility = await this.visibilities.of(principal);
      if (!project || !visibility.canSeeProject(projectId)) throw refuse.invalid(`No project ${projectId} is visible to you.`);
    } else if (naming && !principal.roles.includes('administrator')) {
      throw refuse.forbidden('Name a projectId granted to one of your teams: only an administrator registers targets outside a project.');
    }
  }

  // ---- solutions and projects --------------------------------------------------------------

  async createSolution(ctx: RequestContext, name: string) {
    const id = await this.ids.next('solution');
    await this.commands.execute(`solution-${id}`, portfolioDecider, { type: 'CreateSolution', id, name }, ctx);
    const row = await this.db.knex('solutions').where({ id }).first();
    return { id, name: row.name, createdAt: row.created_at };
  }

  async createProject(ctx: RequestContext, name: string, solutionId: number | null) {
    if (solutionId !== null && !(await this.db.knex('solutions').where({ id: solutionId }).first())) throw refuse.invalid(`No solution ${solutionId}.`);
    const id = await this.ids.next('project');
    await this.commands.execute(`project-${id}`, portfolioDecider, { type: 'CreateProject', id, name, solutionId }, ctx);
    const row = await this.db.knex('projects').where({ id }).first();
    return { id, name: row.name, solutionId: row.solution_id, createdAt: row.created_at };
  }

  async listProjects(principal: Principal) {
    const visibility = await this.visibilities.of(principal);
    const rows: { id: number; name: string; solution_id: number | null; created_at: string }[] = await this.db.knex('projects').orderBy('id');
    return rows.filter((r) => visibility.canSeeProject(Number(r.id)) || visibility.all)
      .map((r) => ({ id: Number(r.id), name: r.name, solutionId: r.solution_id === null ? null : Number(r.solution_id), createdAt: r.created_at }));
  }

  /** GET /solutions: each project with detectedLanguages and languagesUnknownFor over the repositories the caller sees. */
  async listSolutions(principal: Principal) {
    const visibility = await this.visibilities.of(principal);
    const solutions: { id: number; name: string; created_at: string }[] = await this.db.knex('solutions').orderBy('id');
    const projects: { id: number; name: string; solution_id: number | null }[] = await this.db.knex('projects').orderBy('id');
    const repos: TargetRow[] = await scopeToVisible(visibility, this.db.knex('repositories').select('id', 'project_id', 'detected_languages'), 'repository');
    const projectView = (p: { id: number; name: string }) => {
      const langs = projectLanguages(repos.filter((r) => Number(r.project_id) === Number(p.id))
        .map((r) => ({ id: Number(r.id), detectedLanguages: r.detected_languages ? JSON.parse(r.detected_languages) : null })));
      return { id: Number(p.id), name: p.name, ...langs };
    };
    return solutions.map((s) => ({
      id: Number(s.id), name: s.name, createdAt: s.created_at,
      projects: projects.filter((p) => Number(p.solution_id) === Number(s.id) && (visibility.all || visibility.canSeeProject(Number(p.id)))).map(projectView),
    }));
  }
}

