import { accountDecider, checkNewPassword, MIN_PASSWORD_LENGTH, printableName } from '../../domain/identity/account';
import { textProblem } from '../../domain/shared/text';
import { apiKeyDecider, KeyRestriction, RevocationReason } from '../../domain/identity/api-key';
import { isSessionSecret, SHOWN_KEY_PREFIX_LENGTH } from '../../domain/identity/bearer-secret';
import { effectiveScopes, isAdministrator } from '../../domain/identity/roles';
import { DomainError, refuse } from '../../domain/shared/decider';
import { sha256Hex } from '../../domain/shared/digest';
import { Attempt, CommandHandler, RequestContext } from '../command-handler';
import { Clock } from '../ports/clock';
import { IdGenerator } from '../ports/ids';
import { Principal } from './principal';
import { AccountLookup, AccountView, GrantableTargets, KeyLookup, PasswordHasher, SecretMinter, SessionStore } from './ports';
import { SignInThrottle, ThrottleScope } from './sign-in-throttle';
import { VisibilityReader } from './visibility';
import { TARGET_NOUN, TargetKind } from '../../domain/shared/target-kind';
import { streams } from '../../domain/shared/streams';

/** Spec 2 §6: the password throttle refuses an attempt (once per ceiling reached). */
export const SIGN_IN_CEILING_SIEM = { signature: 'VGL-SEC-007', name: 'Sign-in failure ceiling reached', severity: 7 } as const;

/** Whom a throttle event is about: the name typed (escaped) or the address bucket. */
function throttled(scope: ThrottleScope, subject: string) {
  return scope === 'account' ? { scope, username: printableName(subject) } : { scope, address: subject };
}

export type SignInOutcome =
  | { signedIn: { token: string; expiresAt: string; account: AccountView } }
  | { secondFactorRequired: { challenge: string; expiresAt: string } }
  | { refused: 'credentials' }
  | { refused: 'throttled'; retryAfterSeconds: number };

/** How sessions live and whether passwords sign in (configuration, as plain values). */
export interface SessionPolicy {
  lifetimeMs: number;
  idleMs: number;
  passwordLogin: boolean;
  oidcIssuer: string | null;
}

/** What the identity commands are wired to: the command path, the read ports they look things up in, the stores and the crypto. */
export interface IdentityPorts {
  commands: CommandHandler;
  ids: IdGenerator;
  clock: Clock;
  accounts: AccountLookup;
  keys: KeyLookup;
  targets: Pick<GrantableTargets, 'target'>;
  visibilities: VisibilityReader;
  sessions: SessionStore;
  passwords: PasswordHasher;
  secrets: SecretMinter;
  throttle: SignInThrottle;
  policy: SessionPolicy;
  /** The account the installation was bootstrapped with (the `bootstrap` stream), or null. */
  bootstrapAccount: () => Promise<number | null>;
  /** The local second factor (issue #14): a challenge instead of a session for an enrolled account. */
  secondFactor?: { challengeFor(ctx: RequestContext, account: AccountView): Promise<{ challenge: string; expiresAt: string } | null> };
}

/**
 * Accounts, passwords, sessions and integration keys (spec 1 §2.4, §5; CONVENTIONS.md routes):
 * the commands. What they create is read back by the routes from projections/identity.
 */
export class IdentityService {
  private readonly commands: CommandHandler;
  private readonly accounts: AccountLookup;
  private readonly keys: KeyLookup;
  private readonly sessions: SessionStore;
  private readonly passwords: PasswordHasher;
  private readonly policy: SessionPolicy;
  private readonly throttle: SignInThrottle;

  constructor(private readonly ports: IdentityPorts) {
    this.commands = ports.commands;
    this.accounts = ports.accounts;
    this.keys = ports.keys;
    this.sessions = ports.sessions;
    this.passwords = ports.passwords;
    this.policy = ports.policy;
    this.throttle = ports.throttle;
  }

  /** The first account, only while none exists; two instances racing create it once (the `bootstrap` stream). */
  async bootstrap(username: string, password: string): Promise<boolean> {
    if (password.length < MIN_PASSWORD_LENGTH) throw refuse.invalid(`The bootstrap password must have at least ${MIN_PASSWORD_LENGTH} characters.`);
    if ((await this.accounts.count()) > 0) return false;
    const ctx: RequestContext = { actor: null, now: this.ports.clock.now() };
    try {
      await this.create(ctx, { username, displayName: username, password, roles: ['administrator'] }, true);
      return true;
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'conflict') return false;
      throw error;
    }
  }

  /** The new account's id. */
  async createAccount(ctx: RequestContext, body: { username: string; displayName?: string; password: string; roles: string[] }): Promise<number> {
    return this.create(ctx, body, false);
  }

  /**
   * The account, its user name's reservation and (bootstrap) the installation's one bootstrap, in
   * one commit of new streams: a name or a bootstrap taken meanwhile refuses it (409), no retry.
   */
  private async create(ctx: RequestContext, body: { username: string; displayName?: string; password: string; roles: string[] }, bootstrap: boolean): Promise<number> {
    checkNewPassword(body.password);
    const id = await this.ports.ids.next('account');
    const passwordHash = await this.passwords.hash(body.password);
    const events = accountDecider.decide(
      { type: 'CreateAccount', id, username: body.username, displayName: body.displayName ?? body.username, roles: body.roles, passwordHash, bootstrap },
      accountDecider.initialState(),
    );
    await this.commands.transact(ctx, async (attempt) => {
      if (bootstrap) attempt.record(streams.bootstrap, [{ type: 'InstallationBootstrapped', data: { accountId: id } }], 'no_stream');
      attempt.record(streams.username(body.username), [{ type: 'UsernameReserved', data: { accountId: id, username: body.username } }], 'no_stream');
      attempt.record(streams.account(id), events, 'no_stream');
    }, { conflict: () => refuse.conflict(`The username "${body.username}" is taken.`) });
    return id;
  }

  async updateAccount(ctx: RequestContext, id: number, patch: { displayName?: string; roles?: string[]; active?: boolean }): Promise<void> {
    await this.commands.execute(streams.account(id), accountDecider, { type: 'UpdateAccount', ...patch }, ctx);
    // A deactivated account's sessions end: reactivating it must not bring them back (issue #17).
    if (patch.active === false) await this.sessions.endAllOf(id, ctx.now);
  }

  /** `sessionToken` is the session that asks: it stays; the account's other sessions end (issue #17). */
  async changeOwnPassword(ctx: RequestContext, principal: Principal, currentPassword: string, newPassword: string, sessionToken: string): Promise<void> {
    const found = await this.accounts.byId(principal.accountId);
    const ok = await this.passwords.verify(currentPassword ?? '', found?.passwordHash ?? null);
    if (!found || !ok) throw refuse.forbidden('The current password is not right.');
    checkNewPassword(newPassword);
    const passwordHash = await this.passwords.hash(newPassword);
    // Spec 1 §5: an administrator's own change revokes the keys that account issued, in the same commit.
    const revokes = isAdministrator(principal.roles);
    await this.commands.transact(ctx, async (attempt) => {
      await attempt.decide(streams.account(principal.accountId), accountDecider, { type: 'ChangeOwnPassword', passwordHash });
      if (revokes) await this.revoke(attempt, await this.keys.activeKeysOf(principal.accountId), 'password_changed');
    });
    await this.sessions.endAllOf(principal.accountId, ctx.now, sha256Hex(sessionToken));
  }

  /** A reset revokes the account's keys in the same commit and ends its sessions. */
  async resetPassword(ctx: RequestContext, id: number, newPassword: string): Promise<void> {
    checkNewPassword(newPassword);
    const passwordHash = await this.passwords.hash(newPassword);
    await this.commands.transact(ctx, async (attempt) => {
      await attempt.decide(streams.account(id), accountDecider, { type: 'ResetPassword', passwordHash });
      await this.revoke(attempt, await this.keys.activeKeysOf(id), 'password_reset');
    });
    await this.sessions.endAllOf(id, ctx.now);
  }

  // ---- sessions ----------------------------------------------------------------------------

  /**
   * Password sign-in behind the throttle (issue #17): past the failures allowed per account name
   * or per address in a window, every attempt is refused with a wait, the right password
   * included. The log grows by at most the ceilings per window: one SignInRefused per counted
   * failure, one SignInFailureCeilingReached (VGL-SEC-007) at the first refusal, one
   * SignInThrottleEnded with the count of refused attempts once the window is over.
   */
  /** `fields` name the username and password where a refusal quotes them (the route's body members). */
  async signIn(ctx: RequestContext, username: string, password: string, addressBucket: string,
    fields: { username: string; password: string } = { username: 'username', password: 'password' }): Promise<SignInOutcome> {
    const name = typeof username === 'string' ? username : '';
    // Password sign-in off (only while an issuer is set): the bootstrap account alone still signs
    // in with its password, so that an administrator can recover when the provider is away.
    if (this.policy.oidcIssuer && !this.policy.passwordLogin && !(await this.isBootstrapAccount(name))) {
      throw refuse.forbidden('Password sign-in is turned off; sign in through single sign-on.');
    }
    const accountKey = name.toLowerCase().slice(0, 200);
    await this.recordEndedThrottles(ctx);
    const attempt = this.throttle.attempt(accountKey, addressBucket, ctx.now.getTime());
    if (!attempt.allowed) {
      if (attempt.ceilingsReached.length) {
        await this.commands.appendAll([{ stream: streams.signInThrottle, expectedRevision: 'any', events: attempt.ceilingsReached.map((c) => ({
          type: 'SignInFailureCeilingReached',
          data: { ...throttled(c.scope, c.subject), failures: c.failures, windowEndsAt: c.windowEndsAt, siem: SIGN_IN_CEILING_SIEM },
        })) }], ctx);
      }
      return { refused: 'throttled', retryAfterSeconds: attempt.retryAfterSeconds };
    }
    // Names and passwords never hold control characters (account rules): such a request is
    // malformed (400, naming the field and the character), and it is audited like any refused
    // sign-in, the name escaped: a hostile name is an attempt worth recording.
    const malformed = textProblem(fields.username, name, { max: Infinity, kind: 'line' })
      ?? (typeof password === 'string' ? textProblem(fields.password, password, { max: Infinity, kind: 'line' }) : null);
    if (malformed) {
      await this.recordRefusal(ctx, name, 'control_characters');
      throw refuse.invalid(`The request is not valid: ${malformed}.`);
    }
    const found = name ? await this.accounts.byUsername(name) : null;
    // Compared even when no account has the name (against a dummy hash), so timing does not tell.
    const ok = await this.passwords.verify(typeof password === 'string' ? password : '', found?.passwordHash ?? null);
    if (!found || !ok || !found.account.active) {
      await this.recordRefusal(ctx, name, 'credentials');
      return { refused: 'credentials' };
    }
    this.throttle.succeeded(accountKey, addressBucket);
    const challenge = await this.ports.secondFactor?.challengeFor(ctx, found.account);
    if (challenge) return { secondFactorRequired: challenge };
    return { signedIn: await this.openSession(ctx, found.account) };
  }

  /** A new session for an account that proved who it is (a password, or a provider's verified ID token). */
  async openSession(ctx: RequestContext, account: AccountView, method: 'password' | 'oidc' = 'password'): Promise<{ token: string; expiresAt: string; account: AccountView }> {
    const token = this.ports.secrets.newSecret('session');
    const expiresAt = new Date(ctx.now.getTime() + this.policy.lifetimeMs);
    await this.sessions.open(sha256Hex(token), { accountId: account.id, at: ctx.now, expiresAt });
    const data = method === 'password' ? { accountId: account.id } : { accountId: account.id, method };
    await this.commands.appendAll([{ stream: streams.sessions(account.id), events: [{ type: 'SignedIn', data }], expectedRevision: 'any' }], { ...ctx, actor: account.id });
    return { token, expiresAt: expiresAt.toISOString(), account };
  }

  private async isBootstrapAccount(name: string): Promise<boolean> {
    const id = name ? await this.ports.bootstrapAccount() : null;
    return id !== null && (await this.accounts.byUsername(name))?.account.id === id;
  }

  private async recordRefusal(ctx: RequestContext, username: string, reason: 'credentials' | 'control_characters'): Promise<void> {
    await this.commands.appendAll([{ stream: streams.signInRefusals, events: [{ type: 'SignInRefused', data: { username: printableName(username), reason } }], expectedRevision: 'any' }], ctx);
  }

  /** One summary per throttled window that has ended: how many attempts it refused. */
  private async recordEndedThrottles(ctx: RequestContext): Promise<void> {
    const ended = this.throttle.drain(ctx.now.getTime());
    if (ended.length === 0) return;
    await this.commands.appendAll([{ stream: streams.signInThrottle, expectedRevision: 'any', events: ended.map((e) => ({
      type: 'SignInThrottleEnded',
      data: { ...throttled(e.scope, e.subject), failures: e.failures, refused: e.refused, windowStartedAt: e.windowStartedAt, windowEndedAt: e.windowEndedAt },
    })) }], { actor: null, now: ctx.now }); // a summary, not the act of whoever signs in now
  }

  /** When a session ends at the latest (its lifetime; idleness may end it sooner), or null for no such session. */
  async sessionExpiry(token: string): Promise<string | null> {
    return (await this.sessions.find(sha256Hex(token)))?.expiresAt.toISOString() ?? null;
  }

  async signOut(ctx: RequestContext, token: string, principal: Principal): Promise<void> {
    await this.sessions.end(sha256Hex(token), ctx.now);
    await this.commands.appendAll([{ stream: streams.sessions(principal.accountId), events: [{ type: 'SignedOut', data: { accountId: principal.accountId } }], expectedRevision: 'any' }], ctx);
  }

  /** Refused bearer secrets from one address reached the ceiling (audited once per window). */
  async recordBearerFailureCeiling(ctx: RequestContext, addressBucket: string): Promise<void> {
    await this.commands.appendAll([{ stream: streams.bearerFailures, events: [{ type: 'BearerFailureCeilingReached', data: { address: addressBucket } }], expectedRevision: 'any' }], ctx);
  }

  /**
   * A bearer secret to a principal, or null (401 never says why: unknown, revoked, expired,
   * ended, idle, deactivated all look alike).
   */
  async authenticate(secret: string): Promise<Principal | null> {
    const now = this.ports.clock.now();
    const hash = sha256Hex(secret);
    if (isSessionSecret(secret)) {
      const session = await this.sessions.find(hash);
      if (!session || session.ended) return null;
      const lastSeen = session.lastSeenAt.getTime();
      if (session.expiresAt.getTime() <= now.getTime() || lastSeen + this.policy.idleMs <= now.getTime()) return null;
      const account = (await this.accounts.byId(session.accountId))?.account;
      if (!account || !account.active) return null;
      // The idle clock moves at most every few seconds: a write per request is not needed.
      if (now.getTime() - lastSeen > 5000) await this.sessions.touch(hash, now);
      return { kind: 'session', accountId: account.id, username: account.username, displayName: account.displayName, roles: account.roles, scopes: null, withdrawnScopes: [], keyId: null, restriction: null };
    }
    const key = await this.keys.byHash(hash);
    if (!key || key.revoked || (key.expiresAt && Date.parse(key.expiresAt) <= now.getTime())) return null;
    if (!key.account.active) return null;
    // A key does what its account's current roles still allow (the rule of issue, applied on
    // every use): a writer's import key made a reader's stops importing (issue #17).
    const { roles } = key.account;
    const scopes = effectiveScopes(key.scopes, roles);
    return {
      kind: 'key', accountId: key.account.id, username: key.account.username, displayName: key.account.displayName, roles,
      scopes: scopes.held, withdrawnScopes: scopes.withdrawn, keyId: key.keyId, restriction: key.restriction,
    };
  }

  // ---- integration keys --------------------------------------------------------------------

  /** The new key's id and its secret (shown once: only its SHA-256 is kept). */
  async issueKey(ctx: RequestContext, principal: Principal, body: { name: string; scopes: string[]; expiresAt?: string | null; repositoryId?: number; containerId?: number }): Promise<{ id: number; key: string }> {
    if (body.repositoryId !== undefined && body.containerId !== undefined) throw refuse.invalid('Restrict a key to one repository or one container image, not both.');
    let restriction: KeyRestriction = null;
    if (body.repositoryId !== undefined || body.containerId !== undefined) {
      const kind = body.repositoryId !== undefined ? 'repository' : 'container';
      const id = (body.repositoryId ?? body.containerId)!;
      const target = await this.ports.targets.target(kind, id);
      const visibility = await this.ports.visibilities.of(principal);
      if (!target || !visibility.canSee(kind, target)) throw refuse.notFound(`No ${TARGET_NOUN[kind]} ${id} is visible to you.`);
      restriction = { kind, id };
    }
    const secret = this.ports.secrets.newSecret('key');
    const id = await this.ports.ids.next('api_key');
    await this.commands.execute(streams.apiKey(id), apiKeyDecider, {
      type: 'IssueApiKey', id, accountId: principal.accountId, accountRoles: principal.roles, name: body.name, scopes: body.scopes,
      keyHash: sha256Hex(secret), keyPrefix: secret.slice(0, SHOWN_KEY_PREFIX_LENGTH), expiresAt: body.expiresAt ?? null, restriction, now: ctx.now,
    }, ctx);
    return { id, key: secret };
  }

  /** A key of one's own (any key for an administrator); another's answers as an unknown one. */
  async revokeKey(ctx: RequestContext, principal: Principal, id: number): Promise<void> {
    const owner = await this.keys.ownerOf(id);
    if (owner === null || (!isAdministrator(principal.roles) && owner !== principal.accountId)) throw refuse.notFound('No such key.');
    await this.commands.execute(streams.apiKey(id), apiKeyDecider, { type: 'RevokeApiKey', reason: 'revoked' }, ctx);
  }

  /** Revokes an account's keys, in one commit. */
  async revokeKeysOf(ctx: RequestContext, accountId: number, reason: RevocationReason): Promise<void> {
    await this.commands.transact(ctx, async (attempt) => this.revoke(attempt, await this.keys.activeKeysOf(accountId), reason));
  }

  /** Spec 1 §2.4: deleting a target revokes the keys restricted to it (the targets context calls this). */
  async revokeKeysRestrictedTo(ctx: RequestContext, kind: TargetKind, id: number): Promise<void> {
    await this.commands.transact(ctx, async (attempt) => this.revoke(attempt, await this.keys.activeKeysRestrictedTo(kind, id), 'target_deleted'));
  }

  /** Each key's revocation, decided on its own stream within the caller's unit of work. */
  private async revoke(attempt: Attempt, keyIds: readonly number[], reason: RevocationReason): Promise<void> {
    for (const keyId of keyIds) await attempt.decide(streams.apiKey(keyId), apiKeyDecider, { type: 'RevokeApiKey', reason });
  }
}
