import { accountDecider, USERNAME_PATTERN } from '../../domain/identity/account';
import { SHOWN_KEY_PREFIX_LENGTH } from '../../domain/identity/bearer-secret';
import { Role } from '../../domain/identity/roles';
import { applyAttribute, boundedText, patchChanges, ScimError, ScimEvent, TEAM_GRANT_SIEM, UserChanges } from '../../domain/identity/scim';
import { ACCOUNT_CREDENTIALS_SIEM, linkRefusal } from '../../domain/identity/sso';
import { TeamCommand, TeamEvent, teamDecider, TeamState } from '../../domain/identity/team';
import { DomainError } from '../../domain/shared/decider';
import { sha256Hex } from '../../domain/shared/digest';
import { streams } from '../../domain/shared/streams';
import { Attempt, CommandHandler, RequestContext } from '../command-handler';
import { IdGenerator } from '../ports/ids';
import type { IdentityService } from './identity-service';
import { AccountLookup, SecretMinter, SessionStore } from './ports';
import { SecondFactorLookup } from './sso-ports';

export interface ScimPorts {
  commands: CommandHandler;
  ids: IdGenerator;
  accounts: AccountLookup;
  provisioned: { isProvisioned(accountId: number): Promise<boolean> };
  teams: { exists(teamId: number): Promise<boolean> };
  secondFactors: SecondFactorLookup;
  identity: Pick<IdentityService, 'revokeKeysOf'>;
  sessions: Pick<SessionStore, 'endAllOf'>;
  secrets: SecretMinter;
  /** The role of accounts SCIM creates (VIGIL_OIDC_DEFAULT_ROLE) and the link setting. */
  policy: { defaultRole: Role; linkPrivilegedAccounts: boolean };
}

type Body = Record<string, unknown>;

const provisioned = (accountId: number, userName: string, externalId: string | null, via: 'created' | 'bound'): ScimEvent => ({
  type: 'ScimUserProvisioned', data: { accountId, userName, externalId, via, siem: ACCOUNT_CREDENTIALS_SIEM },
});

/**
 * SCIM 2.0 provisioning (issue #14; RFC 7643/7644): the SCIM token, Users (accounts the provider
 * provisions) and Groups (teams). Every change is one commit of the account or team events and a
 * SCIM record signalled VGL-SEC-010 (accounts) or VGL-SEC-011 (team members). Deprovisioning
 * deactivates the account, ends its sessions and revokes its keys.
 */
export class ScimService {
  constructor(private readonly ports: ScimPorts) {}

  /** A new SCIM token (shown once); it replaces any earlier one. */
  async issueToken(ctx: RequestContext): Promise<string> {
    const token = this.ports.secrets.newSecret('scim');
    await this.ports.commands.appendAll([{ stream: streams.scimToken, expectedRevision: 'any', events: [{
      type: 'ScimTokenIssued', data: { tokenHash: sha256Hex(token), prefix: token.slice(0, SHOWN_KEY_PREFIX_LENGTH) },
    }] }], ctx);
    return token;
  }

  async revokeToken(ctx: RequestContext): Promise<void> {
    await this.ports.commands.appendAll([{ stream: streams.scimToken, expectedRevision: 'any', events: [{ type: 'ScimTokenRevoked', data: {} }] }], ctx);
  }

  /** POST /Users: a new account, or an existing one of that userName bound under the linking rules. */
  async createUser(ctx: RequestContext, body: Body): Promise<number> {
    const userName = boundedText('userName', body.userName, 100);
    if (!USERNAME_PATTERN.test(userName)) throw new ScimError(400, 'userName has 1 to 100 letters, digits, dots, underscores, @ or hyphens.', 'invalidValue');
    const changes = this.changesOf(body);
    const externalId = changes.externalId ?? null;
    const existing = await this.ports.accounts.byUsername(userName);
    if (existing) {
      const { account } = existing;
      if (await this.ports.provisioned.isProvisioned(account.id)) throw new ScimError(409, `The user ${userName} is provisioned already (id ${account.id}).`, 'uniqueness');
      const refusal = linkRefusal({ roles: account.roles, active: true, bound: false, secondFactor: await this.ports.secondFactors.hasSecondFactor(account.id) }, this.ports.policy.linkPrivilegedAccounts);
      if (refusal) throw new ScimError(409, `An account named ${userName} exists and is not bound to the identity provider: ${refusal.detail}.`, 'uniqueness');
      await this.write(ctx, account.id, changes, [provisioned(account.id, account.username, externalId, 'bound')], account.active);
      return account.id;
    }
    const id = await this.ports.ids.next('account');
    const created = accountDecider.decide(
      { type: 'CreateAccount', id, username: userName, displayName: changes.displayName || userName, roles: [this.ports.policy.defaultRole], passwordHash: null },
      accountDecider.initialState(),
    );
    await this.ports.commands.transact(ctx, async (attempt) => {
      attempt.record(streams.username(userName), [{ type: 'UsernameReserved', data: { accountId: id, username: userName } }], 'no_stream');
      attempt.record(streams.account(id), created, 'no_stream');
      attempt.record(streams.scimUser(id), [provisioned(id, userName, externalId, 'created')], 'any');
    }, { conflict: () => new ScimError(409, `The userName ${userName} is taken.`, 'uniqueness') });
    if (changes.active === false) await this.write(ctx, id, { active: false }, [], true);
    return id;
  }

  /** PUT /Users/{id}: the writable attributes replaced (an attribute left out is cleared, active left out stays). */
  async replaceUser(ctx: RequestContext, accountId: number, body: Body): Promise<void> {
    const account = await this.provisionedAccount(accountId);
    if (typeof body.userName === 'string' && body.userName.toLowerCase() !== account.username.toLowerCase()) throw new ScimError(400, 'userName cannot be changed in Vigil.', 'mutability');
    const { userName: _ignored, ...rest } = body;
    const changes = this.changesOf(rest);
    await this.write(ctx, accountId, { externalId: changes.externalId ?? null, displayName: changes.displayName ?? account.username, ...(changes.active !== undefined ? { active: changes.active } : {}) }, [], account.active);
  }

  /** PATCH /Users/{id}: a PatchOp. */
  async patchUser(ctx: RequestContext, accountId: number, body: Body): Promise<void> {
    const account = await this.provisionedAccount(accountId);
    await this.write(ctx, accountId, patchChanges(body.Operations), [], account.active);
  }

  /** DELETE /Users/{id}: Vigil keeps the account (its history is the audit trail) and deactivates it. */
  async deactivateUser(ctx: RequestContext, accountId: number): Promise<void> {
    const account = await this.provisionedAccount(accountId);
    await this.write(ctx, accountId, { active: false }, [], account.active);
  }

  /** POST /Groups: a team, with its first members (provisioned accounts). */
  async createGroup(ctx: RequestContext, body: Body): Promise<number> {
    const name = boundedText('displayName', body.displayName, 200);
    if (!name) throw new ScimError(400, 'A group needs a displayName.', 'invalidValue');
    const members = await this.memberIds(body.members ?? []);
    const id = await this.ports.ids.next('team');
    await this.ports.commands.transact(ctx, async (attempt) => {
      const { events } = decideAll(teamDecider.initialState(), [{ type: 'CreateTeam', id, name }, ...members.map((accountId) => ({ type: 'AddMember' as const, accountId }))]);
      attempt.record(streams.team(id), events, 'no_stream');
      attempt.record(streams.scimGroup(id), [{ type: 'ScimGroupChanged', data: { teamId: id, added: members, removed: [], created: true, siem: TEAM_GRANT_SIEM } }], 'any');
    });
    return id;
  }

  /** PATCH /Groups/{id}: members added or removed (`add`/`remove` of members, `remove` with path members[value eq "id"]). */
  async patchGroup(ctx: RequestContext, teamId: number, body: Body, currentMembers: readonly number[]): Promise<void> {
    if (!(await this.ports.teams.exists(teamId))) throw new ScimError(404, `No group ${teamId}.`);
    const ops = body.Operations;
    if (!Array.isArray(ops) || ops.length === 0 || ops.length > 50) throw new ScimError(400, 'Operations must list 1 to 50 operations.', 'invalidSyntax');
    const added = new Set<number>();
    const removed = new Set<number>();
    for (const operation of ops) {
      const { op, path, value } = (operation ?? {}) as { op?: unknown; path?: unknown; value?: unknown };
      const verb = typeof op === 'string' ? op.toLowerCase() : '';
      const filtered = typeof path === 'string' ? /^members\[value eq "(\d{1,10})"\]$/i.exec(path) : null;
      if (verb === 'remove' && filtered) { removed.add(Number(filtered[1])); continue; }
      if (typeof path === 'string' && path.toLowerCase() !== 'members') throw new ScimError(400, `Vigil changes only the members of a group; "${path.slice(0, 100)}" is not writable.`, 'invalidPath');
      if (verb === 'add') for (const id of await this.memberIds(value ?? [])) added.add(id);
      else if (verb === 'remove') for (const id of (value === undefined ? currentMembers : await this.memberIds(value))) removed.add(id);
      else if (verb === 'replace') {
        const next = await this.memberIds(value ?? []);
        for (const id of currentMembers) if (!next.includes(id)) removed.add(id);
        for (const id of next) added.add(id);
      } else throw new ScimError(400, `Unknown op ${JSON.stringify(op)}; write add, replace or remove.`, 'invalidSyntax');
    }
    await this.ports.commands.transact(ctx, async (attempt) => {
      // One stream, several commands: folded in memory and recorded once, at the revision read.
      const { state, revision } = await attempt.load(streams.team(teamId), teamDecider);
      const commands: TeamCommand[] = [
        ...[...removed].filter((accountId) => !added.has(accountId)).map((accountId) => ({ type: 'RemoveMember' as const, accountId })),
        ...[...added].map((accountId) => ({ type: 'AddMember' as const, accountId })),
      ];
      const { events } = decideAll(state, commands);
      attempt.record(streams.team(teamId), events, revision ?? 'no_stream');
      const changed = {
        added: events.filter((e) => e.type === 'TeamMemberAdded').map((e) => (e.data as { accountId: number }).accountId),
        removed: events.filter((e) => e.type === 'TeamMemberRemoved').map((e) => (e.data as { accountId: number }).accountId),
      };
      if (changed.added.length || changed.removed.length) {
        attempt.record(streams.scimGroup(teamId), [{ type: 'ScimGroupChanged', data: { teamId, ...changed, created: false, siem: TEAM_GRANT_SIEM } }], 'any');
      }
    });
  }

  private changesOf(body: Body): UserChanges {
    const changes: UserChanges = {};
    for (const [attribute, value] of Object.entries(body)) {
      if (attribute === 'userName') continue;
      applyAttribute(changes, attribute, value);
    }
    return changes;
  }

  private async provisionedAccount(accountId: number) {
    const found = await this.ports.accounts.byId(accountId);
    if (!found || !(await this.ports.provisioned.isProvisioned(accountId))) throw new ScimError(404, `No user ${accountId}.`);
    return found.account;
  }

  /** The members a write names ([{value: "<id>"}]): provisioned accounts only. */
  private async memberIds(value: unknown): Promise<number[]> {
    if (!Array.isArray(value) || value.length > 1000) throw new ScimError(400, 'members is a list of at most 1000 {value: "<user id>"}.', 'invalidValue');
    const ids: number[] = [];
    for (const m of value) {
      const raw = (m as { value?: unknown })?.value;
      const id = typeof raw === 'string' && /^\d{1,10}$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(id) || !(await this.ports.provisioned.isProvisioned(id))) throw new ScimError(400, `Member ${JSON.stringify(raw)} is not a provisioned user.`, 'invalidValue');
      if (!ids.includes(id)) ids.push(id);
    }
    return ids;
  }

  /**
   * One commit: the account's update, the SCIM record (and `extra` records); then, when it turns
   * the account inactive, its sessions end and its keys are revoked (deprovisioning).
   */
  private async write(ctx: RequestContext, accountId: number, changes: UserChanges, extra: ScimEvent[], wasActive: boolean): Promise<void> {
    const deprovisions = changes.active === false && wasActive;
    await this.ports.commands.transact(ctx, async (attempt: Attempt) => {
      const update = { ...(changes.displayName !== undefined ? { displayName: changes.displayName } : {}), ...(changes.active !== undefined ? { active: changes.active } : {}) };
      if (Object.keys(update).length) await attempt.decide(streams.account(accountId), accountDecider, { type: 'UpdateAccount', ...update });
      const records: ScimEvent[] = [...extra];
      if (!extra.length && Object.keys(changes).length) records.push({ type: 'ScimUserChanged', data: { accountId, changes, siem: ACCOUNT_CREDENTIALS_SIEM } });
      if (deprovisions) records.push({ type: 'ScimUserDeprovisioned', data: { accountId, siem: ACCOUNT_CREDENTIALS_SIEM } });
      if (records.length) attempt.record(streams.scimUser(accountId), records, 'any');
    }).catch((error) => {
      if (error instanceof DomainError) throw new ScimError(error.kind === 'not_found' ? 404 : 400, error.message, 'invalidValue');
      throw error;
    });
    if (deprovisions) {
      await this.ports.sessions.endAllOf(accountId, ctx.now);
      await this.ports.identity.revokeKeysOf(ctx, accountId, 'deprovisioned');
    }
  }
}

/** Commands on one team, each decided on the state the previous ones lead to. */
function decideAll(state: TeamState, commands: TeamCommand[]): { events: TeamEvent[]; state: TeamState } {
  const events: TeamEvent[] = [];
  for (const command of commands) {
    const decided = teamDecider.decide(command, state);
    events.push(...decided);
    state = decided.reduce(teamDecider.evolve, state);
  }
  return { events, state };
}
