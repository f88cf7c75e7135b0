import { CredentialRef, TargetCommand, targetDecider, TargetEvent, targetKeyDecider, TargetPatch, TargetState } from '../../domain/targets';
import { TargetKind } from '../../domain/shared/target-kind';
import { isAdministrator, writes } from '../../domain/identity/roles';
import { portfolioDecider } from '../../domain/portfolio/portfolio';
import { DomainError, refuse } from '../../domain/shared/decider';
import { Attempt, CommandHandler, RequestContext } from '../command-handler';
import { Principal } from '../identity/principal';
import { IdGenerator } from '../ports/ids';
import { decideCredentialLinks } from '../credentials/credential-links';
import { CloneUrlCheck, CloneUrlVerdict } from '../ports/clone-url-check';
import { streams } from '../../domain/shared/streams';
import { AgentDirectory, PortfolioReads, RestrictedKeys, TargetReads, TargetRow, TargetView, targetNotVisible } from './ports';

export type { TargetRow, TargetView } from './ports';

/** sshKeyId / httpsTokenId of a request (the names spec 2 uses for forge imports): at most one; null clears. */
export interface CredentialFields { sshKeyId?: number | null; httpsTokenId?: number | null }

function credentialOf(body: CredentialFields): CredentialRef | null | undefined {
  const { sshKeyId: ssh, httpsTokenId: https } = body;
  if (ssh != null && https != null) throw refuse.invalid('Name at most one of sshKeyId and httpsTokenId: a repository clones with one credential.');
  if (ssh != null) return { id: ssh, kind: 'ssh_key' };
  if (https != null) return { id: https, kind: 'https_token' };
  return ssh === null || https === null ? null : undefined;
}

/** The uniqueness key a decision takes and the one it gives up (trap 4). */
interface KeyMove { reserve: string | null; release: string | null; targetId: number }

/** How long the entry check waits for DNS before leaving the question to the scan-time check. */
const GUARD_TIMEOUT_MS = 5_000;

/** Who reads what: the answer of a write is read as an administrator (the writer may not see where they put it). */
const asAdministrator = (principal: Principal): Principal => ({ ...principal, roles: ['administrator'], restriction: null });

/**
 * Repositories and container images (spec 1 §2.1, §4.2), solutions and projects: the commands.
 * Registration reserves the repository's (identity, branch, sub-path) key on its own stream in the
 * same commit as the target (trap 4), so two instances racing register it once. Every write is one
 * unit of work (`CommandHandler.transact`): the target's stream, the key reservations and the
 * credential links are read and decided together, and a lost race reads them all again.
 * Queries: projections/targets/queries.ts and portfolio-queries.ts.
 */
export class TargetService {
  constructor(
    private readonly reads: TargetReads,
    private readonly portfolio: PortfolioReads,
    private readonly commands: CommandHandler,
    private readonly ids: IdGenerator,
    private readonly keys: RestrictedKeys,
    /** The clone guard, asked on entry (spec 1 §8.3); null: not checked here (the executor still checks before each scan). */
    private readonly cloneGuard: CloneUrlCheck | null = null,
    /** Checks a required agent exists; null: not checked (specs composing a service without agents). */
    private readonly agents: AgentDirectory | null = null,
  ) {}

  /** The row when the caller sees it; 404 alike for unknown and unseen (spec 1 §7). Other contexts check a target with it. */
  async visibleRow(principal: Principal, kind: TargetKind, id: number): Promise<TargetRow> {
    const row = await this.reads.findVisible(principal, kind, id);
    if (!row) throw targetNotVisible(kind, id);
    return row;
  }

  async get(principal: Principal, kind: TargetKind, id: number): Promise<TargetView> {
    return this.reads.get(principal, kind, id);
  }

  // ---- commands ----------------------------------------------------------------------------

  async register(ctx: RequestContext, principal: Principal, kind: TargetKind, body: Record<string, unknown>) {
    await this.checkMayWrite(principal, body.projectId as number | null | undefined, true);
    const credential = credentialOf(body as CredentialFields);
    if (credential) this.checkMayNameCredential(principal);
    const id = await this.ids.next(kind);
    await this.checkAgentExists(body.requiredAgentId);
    const base = {
      id, actor: String(principal.accountId), now: ctx.now, name: body.name as string | undefined, projectId: (body.projectId ?? null) as number | null, scanManualOnly: body.scanManualOnly as boolean | undefined, scanIntervalMinutes: body.scanIntervalMinutes as number | null | undefined, scanCron: body.scanCron as string | null | undefined,
      requiredAgentId: body.requiredAgentId as number | null | undefined, requiredLabels: body.requiredLabels as string[] | null | undefined,
    };
    const command: TargetCommand = kind === 'repository'
      ? { type: 'RegisterRepository', ...base, url: body.url as string, branch: body.branch as string | undefined, subPath: body.subPath as string | undefined, credential }
      : { type: 'RegisterContainer', ...base, image: body.image as string };
    const events = targetDecider.decide(command, targetDecider.initialState());
    const repository = kind === 'repository' ? (events[0].data as { uniquenessKey: string; url: string }) : null;
    if (repository) await this.checkCloneGuard(repository.url);
    await this.commands.transact(ctx, async (attempt) => {
      if (repository && credential) await decideCredentialLinks(attempt, ctx, id, repository.url, null, credential, true);
      await this.decideKeys(attempt, principal, repository ? { reserve: repository.uniquenessKey, release: null, targetId: id } : null);
      // A new id: nobody else writes this stream.
      attempt.record(streams.target(kind, id), events, 'no_stream');
    });
    return this.reads.get(asAdministrator(principal), kind, id);
  }

  async update(ctx: RequestContext, principal: Principal, kind: TargetKind, id: number, body: TargetPatch & CredentialFields) {
    const row = await this.visibleRow(principal, kind, id);
    const { sshKeyId: _ssh, httpsTokenId: _https, ...fields } = body;
    const credential = credentialOf(body);
    const patch: TargetPatch = credential === undefined ? fields : { ...fields, credential };
    await this.checkMayWrite(principal, patch.projectId !== undefined ? patch.projectId : row.project_id, patch.projectId !== undefined);
    if (credential !== undefined) this.checkMayNameCredential(principal);
    await this.checkAgentExists(patch.requiredAgentId);
    if (row.credential_id != null && patch.url !== undefined && patch.url.trim() !== row.url && !isAdministrator(principal.roles)) {
      throw refuse.forbidden('Only an administrator changes the URL of a repository that clones with a stored credential: the credential would follow the URL.');
    }
    const stream = streams.target(kind, id);
    // The guard is asked once per URL, not once per attempt of the unit of work.
    const guarded = new Set<string>();
    await this.commands.transact(ctx, async (attempt) => {
      const { state, revision } = await attempt.load<TargetEvent, TargetState>(stream, targetDecider);
      const events = targetDecider.decide({ type: 'UpdateTarget', id, actor: String(principal.accountId), now: ctx.now, changes: patch }, state);
      if (events.length === 0) return;
      const data = events[0].data as { uniquenessKey?: { previous: string; current: string }; changes: { url?: string; credential?: CredentialRef | null } };
      const moved = data.uniquenessKey;
      const target = (state as Extract<TargetState, { target: unknown }>).target;
      const url = data.changes.url ?? (target.kind === 'repository' ? target.url : '');
      if (data.changes.url !== undefined && !guarded.has(data.changes.url)) {
        await this.checkCloneGuard(data.changes.url);
        guarded.add(data.changes.url);
      }
      const previous = target.kind === 'repository' ? target.credential ?? null : null;
      const next = data.changes.credential === undefined ? previous : data.changes.credential;
      if (previous || next) await decideCredentialLinks(attempt, ctx, id, url, previous, next, data.changes.url !== undefined);
      await this.decideKeys(attempt, principal, moved ? { reserve: moved.current, release: moved.previous, targetId: id } : null);
      attempt.record(stream, events, revision ?? 'no_stream');
    });
    return this.reads.get(asAdministrator(principal), kind, id);
  }

  async delete(ctx: RequestContext, principal: Principal, kind: TargetKind, id: number): Promise<void> {
    const row = await this.visibleRow(principal, kind, id);
    await this.checkMayWrite(principal, row.project_id, false);
    const stream = streams.target(kind, id);
    await this.commands.transact(ctx, async (attempt) => {
      const { state, revision } = await attempt.load<TargetEvent, TargetState>(stream, targetDecider);
      const events = targetDecider.decide({ type: 'DeleteTarget', id, actor: String(principal.accountId), now: ctx.now }, state);
      const key = (events[0].data as { uniquenessKey: string | null }).uniquenessKey;
      const target = (state as Extract<TargetState, { target: unknown }>).target;
      const credential = target.kind === 'repository' ? target.credential ?? null : null;
      if (credential && target.kind === 'repository') await decideCredentialLinks(attempt, ctx, id, target.url, credential, null, false);
      await this.decideKeys(attempt, principal, key ? { reserve: null, release: key, targetId: id } : null);
      attempt.record(stream, events, revision ?? 'no_stream');
    });
    await this.keys.revokeKeysRestrictedTo(ctx, kind, id);
  }

  /**
   * Reserves and releases uniqueness keys on their own streams, read in the unit of work: a race
   * lost on a key runs the work again, and the key's decider then names the winner (shapeConflict).
   */
  private async decideKeys(attempt: Attempt, principal: Principal, keys: KeyMove | null): Promise<void> {
    if (!keys) return;
    try {
      for (const [key, type] of [[keys.reserve, 'Reserve'], [keys.release, 'Release']] as const) {
        if (key) await attempt.decide(streams.targetKey(key), targetKeyDecider, { type, key, targetId: keys.targetId });
      }
    } catch (error) {
      throw await this.shapeConflict(principal, error);
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

  /** A required agent names an agent row that exists (400 otherwise; S1.2.1-20). */
  private async checkAgentExists(agentId: unknown): Promise<void> {
    if (typeof agentId !== 'number' || !this.agents) return; // null clears; the decider refuses other shapes
    if (!(await this.agents.exists(agentId))) throw refuse.invalid(`requiredAgentId: no agent ${agentId} (an agent row is its agent key's id, created by its first hello; GET /admin/agents).`);
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
    if (await this.reads.findVisible(principal, 'repository', existing)) {
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
      if (!(await this.portfolio.seesProject(principal, projectId))) throw refuse.invalid(`No project ${projectId} is visible to you.`);
    } else if (naming && !principal.roles.includes('administrator')) {
      throw refuse.forbidden('Name a projectId granted to one of your teams: only an administrator registers targets outside a project.');
    }
  }

  // ---- solutions and projects --------------------------------------------------------------

  async createSolution(ctx: RequestContext, name: string) {
    const id = await this.ids.next('solution');
    await this.commands.execute(streams.solution(id), portfolioDecider, { type: 'CreateSolution', id, name }, ctx);
    return this.portfolio.solution(id);
  }

  async createProject(ctx: RequestContext, name: string, solutionId: number | null) {
    if (solutionId !== null && !(await this.portfolio.solutionExists(solutionId))) throw refuse.invalid(`No solution ${solutionId}.`);
    const id = await this.ids.next('project');
    await this.commands.execute(streams.project(id), portfolioDecider, { type: 'CreateProject', id, name, solutionId }, ctx);
    return this.portfolio.project(id);
  }
}
