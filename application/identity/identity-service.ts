import { accountDecider, checkNewPassword, MIN_PASSWORD_LENGTH, printableName } from '../../domain/identity/account';
import { textProblem } from '../../domain/shared/text';
import { apiKeyDecider, KeyRestriction, RevocationReason } from '../../domain/identity/api-key';
import { effectiveScopes, isAdministrator, Role, Scope } from '../../domain/identity/roles';
import { DomainError, refuse } from '../../domain/shared/decider';
import { Database } from '../../infrastructure/db/database';
import { preparedRows } from '../../infrastructure/db/prepared';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../../infrastructure/crypto/passwords';
import { newSecret } from '../../infrastructure/crypto/tokens';
import { sha256Hex } from '../../domain/shared/digest';
import { CommandHandler, RequestContext } from '../command-handler';
import { Clock } from '../ports/clock';
import { IdGenerator } from '../ports/ids';
import { Principal } from './principal';
import { SignInThrottle, ThrottleScope } from './sign-in-throttle';
import { Visibility, VisibilityReader } from './visibility';
import { TARGET_NOUN } from '../../domain/shared/target-kind';
import { streams } from '../../domain/shared/streams';

export interface AccountRow {
  id: number; username: string; display_name: string; roles: string; active: boolean | number; password_hash: string | null; created_at: string; updated_at: string;
}
export interface ApiKeyRow {
  id: number; account_id: number; name: string; scopes: string; key_hash: string; key_prefix: string;
  restriction_kind: 'repository' | 'container' | null; restriction_id: number | null; expires_at: string | null; revoked_at: string | null; revoked_reason: string | null; created_at: string;
}

/** Spec 2 §6: the password throttle refuses an attempt (once per ceiling reached). */
export const SIGN_IN_CEILING_SIEM = { signature: 'VGL-SEC-007', name: 'Sign-in failure ceiling reached', severity: 7 } as const;

/** Whom a throttle event is about: the name typed (escaped) or the address bucket. */
function throttled(scope: ThrottleScope, subject: string) {
  return scope === 'account' ? { scope, username: printableName(subject) } : { scope, address: subject };
}

export type SignInOutcome =
  | { signedIn: { token: string; expiresAt: string; account: ReturnType<typeof accountView> } }
  | { refused: 'credentials' }
  | { refused: 'throttled'; retryAfterSeconds: number };

export function accountView(row: AccountRow) {
  return { id: Number(row.id), username: row.username, displayName: row.display_name, roles: JSON.parse(row.roles) as Role[], active: Boolean(row.active), createdAt: row.created_at, updatedAt: row.updated_at };
}

export function apiKeyView(row: ApiKeyRow, now: Date) {
  const expired = row.expires_at !== null && Date.parse(row.expires_at) <= now.getTime();
  return {
    id: Number(row.id), name: row.name, accountId: Number(row.account_id), scopes: JSON.parse(row.scopes) as Scope[], prefix: row.key_prefix,
    restriction: row.restriction_kind ? { kind: row.restriction_kind, id: Number(row.restriction_id) } : null,
    expiresAt: row.expires_at, createdAt: row.created_at, revokedAt: row.revoked_at, revokedReason: row.revoked_reason,
    state: row.revoked_at ? 'revoked' : expired ? 'expired' : 'active',
  };
}

/** Accounts, passwords, sessions and integration keys (spec 1 §2.4, §5; CONVENTIONS.md routes). */
export class IdentityService {
  constructor(
    private readonly db: Database,
    private readonly visibilities: VisibilityReader,
    private readonly commands: CommandHandler,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly sessionPolicy: { lifetimeMs: number; idleMs: number; passwordLogin: boolean; oidcIssuer: string | null },
    private readonly throttle: SignInThrottle,
  ) {}

  async accountCount(): Promise<number> {
    const row = await this.db.knex('accounts').count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }

  /** The first account, only while none exists; two instances racing create it once (the `bootstrap` stream). */
  async bootstrap(username: string, password: string): Promise<boolean> {
    if (password.length < MIN_PASSWORD_LENGTH) throw refuse.invalid(`The bootstrap password must have at least ${MIN_PASSWORD_LENGTH} characters.`);
    if ((await this.accountCount()) > 0) return false;
    const ctx: RequestContext = { actor: null, now: this.clock.now() };
    try {
      await this.createAccountUnchecked(ctx, { username, displayName: username, password, roles: ['administrator'] }, true);
      return true;
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'conflict') return false;
      throw error;
    }
  }

  async createAccount(ctx: RequestContext, body: { username: string; displayName?: string; password: string; roles: string[] }) {
    return this.createAccountUnchecked(ctx, body, false);
  }

  private async createAccountUnchecked(ctx: RequestContext, body: { username: string; displayName?: string; password: string; roles: string[] }, bootstrap: boolean) {
    checkNewPassword(body.password);
    const id = await this.ids.next('account');
    const events = accountDecider.decide(
      { type: 'CreateAccount', id, username: body.username, displayName: body.displayName ?? body.username, roles: body.roles, passwordHash: await hashPassword(body.password), bootstrap },
      accountDecider.initialState(),
    );
    try {
      await this.commands.appendAll([
        ...(bootstrap ? [{ stream: streams.bootstrap, events: [{ type: 'InstallationBootstrapped', data: { accountId: id } }], expectedRevision: 'no_stream' as const }] : []),
        { stream: streams.username(body.username), events: [{ type: 'UsernameReserved', data: { accountId: id, username: body.username } }], expectedRevision: 'no_stream' },
        { stream: streams.account(id), events, expectedRevision: 'no_stream' },
      ], ctx);
    } catch (error) {
      if ((error as Error).name === 'WrongExpectedRevision') throw refuse.conflict(`The username "${body.username}" is taken.`);
      throw error;
    }
    return this.getAccount(id);
  }

  async getAccount(id: number) {
    const row: AccountRow | undefined = await this.db.knex('accounts').where({ id }).first();
    if (!row) throw refuse.notFound('No such account.');
    return accountView(row);
  }

  async listAccounts() {
    const rows: AccountRow[] = await this.db.knex('accounts').orderBy('id');
    return rows.map(accountView);
  }

  async updateAccount(ctx: RequestContext, id: number, patch: { displayName?: string; roles?: string[]; active?: boolean }) {
    await this.commands.execute(streams.account(id), accountDecider, { type: 'UpdateAccount', ...patch }, ctx);
    // A deactivated account's sessions end: reactivating it must not bring them back (issue #17).
    if (patch.active === false) await this.endSessions(ctx, id);
    return this.getAccount(id);
  }

  /** `sessionToken` is the session that asks: it stays; the account's other sessions end (issue #17). */
  async changeOwnPassword(ctx: RequestContext, principal: Principal, currentPassword: string, newPassword: string, sessionToken: string): Promise<void> {
    const row: AccountRow | undefined = await this.db.knex('accounts').where({ id: principal.accountId }).first();
    if (!row || !(await verifyPassword(currentPassword ?? '', row.password_hash))) throw refuse.forbidden('The current password is not right.');
    checkNewPassword(newPassword);
    await this.commands.execute(streams.account(principal.accountId), accountDecider, { type: 'ChangeOwnPassword', passwordHash: await hashPassword(newPassword) }, ctx);
    await this.endSessions(ctx, principal.accountId, sessionToken);
    // Spec 1 §5: an administrator's own change revokes the keys that account issued.
    if (isAdministrator(principal.roles)) await this.revokeKeysOf(ctx, principal.accountId, 'password_changed');
  }

  async resetPassword(ctx: RequestContext, id: number, newPassword: string): Promise<void> {
    checkNewPassword(newPassword);
    await this.commands.execute(streams.account(id), accountDecider, { type: 'ResetPassword', passwordHash: await hashPassword(newPassword) }, ctx);
    await this.revokeKeysOf(ctx, id, 'password_reset');
    await this.endSessions(ctx, id);
  }

  /** Ends an account's open sessions, but the one named by `keep` (sessions are a table, ADR 0004). */
  private async endSessions(ctx: RequestContext, accountId: number, keep?: string): Promise<void> {
    const q = this.db.knex('sessions').where({ account_id: accountId }).whereNull('ended_at');
    if (keep !== undefined) q.whereNot({ token_hash: sha256Hex(keep) });
    await q.update({ ended_at: ctx.now.toISOString() });
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
    if (this.sessionPolicy.oidcIssuer && !this.sessionPolicy.passwordLogin) throw refuse.forbidden('Password sign-in is turned off; sign in through single sign-on.');
    const name = typeof username === 'string' ? username : '';
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
    const row: AccountRow | undefined = name ? await this.db.knex('accounts').where({ username_key: name.toLowerCase() }).first() : undefined;
    const ok = await verifyPassword(typeof password === 'string' ? password : '', row?.password_hash ?? DUMMY_PASSWORD_HASH);
    if (!row || !ok || !row.active) {
      await this.recordRefusal(ctx, name, 'credentials');
      return { refused: 'credentials' };
    }
    this.throttle.succeeded(accountKey, addressBucket);
    const token = newSecret('session');
    const now = ctx.now.getTime();
    const expiresAt = new Date(now + this.sessionPolicy.lifetimeMs).toISOString();
    await this.db.knex('sessions').insert({ token_hash: sha256Hex(token), account_id: row.id, created_at: ctx.now.toISOString(), last_seen_at: ctx.now.toISOString(), expires_at: expiresAt, ended_at: null });
    await this.commands.appendAll([{ stream: streams.sessions(Number(row.id)), events: [{ type: 'SignedIn', data: { accountId: Number(row.id) } }], expectedRevision: 'any' }], { ...ctx, actor: Number(row.id) });
    return { signedIn: { token, expiresAt, account: accountView(row) } };
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

  async signOut(ctx: RequestContext, token: string, principal: Principal): Promise<void> {
    await this.db.knex('sessions').where({ token_hash: sha256Hex(token) }).update({ ended_at: ctx.now.toISOString() });
    await this.commands.appendAll([{ stream: streams.sessions(principal.accountId), events: [{ type: 'SignedOut', data: { accountId: principal.accountId } }], expectedRevision: 'any' }], ctx);
  }

  /**
   * A bearer secret to a principal, or null (401 never says why: unknown, revoked, expired,
   * ended, idle, deactivated all look alike).
   */
  async authenticate(secret: string): Promise<Principal | null> {
    const now = this.clock.now();
    const hash = sha256Hex(secret);
    if (secret.startsWith('vgl_s_')) {
      const session = await this.db.knex('sessions').where({ token_hash: hash }).first();
      if (!session || session.ended_at) return null;
      const lastSeen = Date.parse(session.last_seen_at);
      if (Date.parse(session.expires_at) <= now.getTime() || lastSeen + this.sessionPolicy.idleMs <= now.getTime()) return null;
      const account: AccountRow | undefined = await this.db.knex('accounts').where({ id: session.account_id }).first();
      if (!account || !account.active) return null;
      // The idle clock moves at most every few seconds: a write per request is not needed.
      if (now.getTime() - lastSeen > 5000) await this.db.knex('sessions').where({ token_hash: hash }).update({ last_seen_at: now.toISOString() });
      return { kind: 'session', accountId: Number(account.id), username: account.username, displayName: account.display_name, roles: JSON.parse(account.roles), scopes: null, withdrawnScopes: [], keyId: null, restriction: null };
    }
    // Key and account in one statement: every pipeline call starts here, one round trip less each.
    type KeyAndAccount = Pick<ApiKeyRow, 'id' | 'account_id' | 'scopes' | 'restriction_kind' | 'restriction_id' | 'expires_at' | 'revoked_at'>
      & Pick<AccountRow, 'username' | 'display_name' | 'roles' | 'active'>;
    const [key] = await preparedRows<KeyAndAccount>(this.db, 'vigil_authenticate_key',
      'SELECT k.id, k.account_id, k.scopes, k.restriction_kind, k.restriction_id, k.expires_at, k.revoked_at, a.username, a.display_name, a.roles, a.active'
      + ' FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?', [hash]);
    if (!key || key.revoked_at || (key.expires_at && Date.parse(key.expires_at) <= now.getTime())) return null;
    if (!key.active) return null;
    // A key does what its account's current roles still allow (the rule of issue, applied on
    // every use): a writer's import key made a reader's stops importing (issue #17).
    const roles: Role[] = JSON.parse(key.roles);
    const scopes = effectiveScopes(JSON.parse(key.scopes), roles);
    return {
      kind: 'key', accountId: Number(key.account_id), username: key.username, displayName: key.display_name, roles,
      scopes: scopes.held, withdrawnScopes: scopes.withdrawn, keyId: Number(key.id), restriction: key.restriction_kind ? { kind: key.restriction_kind, id: Number(key.restriction_id) } : null,
    };
  }

  // ---- integration keys --------------------------------------------------------------------

  async issueKey(ctx: RequestContext, principal: Principal, body: { name: string; scopes: string[]; expiresAt?: string | null; repositoryId?: number; containerId?: number }) {
    if (body.repositoryId !== undefined && body.containerId !== undefined) throw refuse.invalid('Restrict a key to one repository or one container image, not both.');
    let restriction: KeyRestriction = null;
    if (body.repositoryId !== undefined || body.containerId !== undefined) {
      const kind = body.repositoryId !== undefined ? 'repository' : 'container';
      const id = (body.repositoryId ?? body.containerId)!;
      const row = await this.db.knex(kind === 'repository' ? 'repositories' : 'containers').where({ id }).first();
      const visibility = await this.visibilities.of(principal);
      if (!row || !visibility.canSee(kind, row)) throw refuse.notFound(`No ${TARGET_NOUN[kind]} ${id} is visible to you.`);
      restriction = { kind, id };
    }
    const secret = newSecret('key');
    const id = await this.ids.next('api_key');
    await this.commands.execute(streams.apiKey(id), apiKeyDecider, {
      type: 'IssueApiKey', id, accountId: principal.accountId, accountRoles: principal.roles, name: body.name, scopes: body.scopes,
      keyHash: sha256Hex(secret), keyPrefix: secret.slice(0, 12), expiresAt: body.expiresAt ?? null, restriction, now: ctx.now.toISOString(),
    }, ctx);
    const view = await this.getKey(id);
    return { ...view, key: secret };
  }

  async getKey(id: number) {
    const row: ApiKeyRow | undefined = await this.db.knex('api_keys').where({ id }).first();
    if (!row) throw refuse.notFound('No such key.');
    return apiKeyView(row, this.clock.now());
  }

  async listKeys(principal: Principal) {
    const q = this.db.knex('api_keys').orderBy('id');
    if (!isAdministrator(principal.roles)) q.where({ account_id: principal.accountId });
    const rows: ApiKeyRow[] = await q;
    return rows.map((r) => apiKeyView(r, this.clock.now()));
  }

  async revokeKey(ctx: RequestContext, principal: Principal, id: number): Promise<void> {
    const row: ApiKeyRow | undefined = await this.db.knex('api_keys').where({ id }).first();
    if (!row || (!isAdministrator(principal.roles) && Number(row.account_id) !== principal.accountId)) throw refuse.notFound('No such key.');
    await this.commands.execute(streams.apiKey(id), apiKeyDecider, { type: 'RevokeApiKey', reason: 'revoked' }, ctx);
  }

  async revokeKeysOf(ctx: RequestContext, accountId: number, reason: RevocationReason): Promise<void> {
    const rows: { id: number }[] = await this.db.knex('api_keys').where({ account_id: accountId }).whereNull('revoked_at').select('id');
    for (const r of rows) await this.commands.execute(streams.apiKey(Number(r.id)), apiKeyDecider, { type: 'RevokeApiKey', reason }, ctx);
  }

  /** Spec 1 §2.4: deleting a target revokes the keys restricted to it. */
  async revokeKeysRestrictedTo(ctx: RequestContext, kind: 'repository' | 'container', id: number): Promise<void> {
    const rows: { id: number }[] = await this.db.knex('api_keys').where({ restriction_kind: kind, restriction_id: id }).whereNull('revoked_at').select('id');
    for (const r of rows) await this.commands.execute(streams.apiKey(Number(r.id)), apiKeyDecider, { type: 'RevokeApiKey', reason: 'target_deleted' }, ctx);
  }
}
