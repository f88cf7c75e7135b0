import { accountDecider, printableName } from '../../domain/identity/account';
import { ACCOUNT_CREDENTIALS_SIEM, linkRefusal, MfaPolicy, secondFactorStated, SignOnClaims, SsoEvent, usernameFor } from '../../domain/identity/sso';
import { Role } from '../../domain/identity/roles';
import { refuse } from '../../domain/shared/decider';
import { sha256Hex } from '../../domain/shared/digest';
import { streams } from '../../domain/shared/streams';
import { CommandHandler, RequestContext } from '../command-handler';
import { IdGenerator } from '../ports/ids';
import type { IdentityService } from './identity-service';
import { AccountLookup, AccountView } from './ports';
import { IdentityProvider, SecondFactorLookup, SignOnFailed, SignOnStore, SubjectLookup } from './sso-ports';

/** How long a browser has between the redirect to the provider and the callback. */
export const SIGN_ON_WINDOW_MS = 10 * 60_000;
/** How old an ID token a CLI presents may be (its `iat`). */
export const EXCHANGE_MAX_AGE_MS = 5 * 60_000;

export interface SsoPolicy extends MfaPolicy {
  issuer: string;
  defaultRole: Role;
  linkPrivilegedAccounts: boolean;
  exchangeAudiences: readonly string[];
}

export interface SsoPorts {
  commands: CommandHandler;
  ids: IdGenerator;
  provider: IdentityProvider;
  store: SignOnStore;
  subjects: SubjectLookup;
  accounts: AccountLookup;
  secondFactors: SecondFactorLookup;
  sessions: Pick<IdentityService, 'openSession'>;
  policy: SsoPolicy;
}

export type SignedOn = { token: string; expiresAt: string; account: AccountView; created: boolean };

/** Why a sign-on was refused; the route answers each with its own status and problem type. */
export type SignOnRefusal = 'sso-state-unknown' | 'sso-not-verified' | 'sso-provider-unreachable' | 'sso-second-factor-required' | 'sso-link-refused' | 'sso-account-deactivated';

export class SignOnRefused extends Error {
  constructor(readonly refusal: SignOnRefusal, message: string) {
    super(message);
    this.name = 'SignOnRefused';
  }
}

/**
 * Single sign-on (issue #14; spec 1 §5): the authorization code flow with PKCE and nonce, the
 * second-factor rule on the token, accounts matched by subject, created at a first sign-on with
 * the default role, or bound to an existing account under the linking rules; and the exchange of
 * a CLI's own ID token for a session. The session is opened only after the ID token verified.
 */
export class SsoService {
  constructor(private readonly ports: SsoPorts) {}

  get exchangeEnabled(): boolean {
    return this.ports.policy.exchangeAudiences.length > 0;
  }

  /** The provider's authorization URL and the browser's binding secret (set as a cookie by the route). */
  async begin(now: Date, redirectUri: string, browserSecret: string): Promise<string> {
    const start = await this.provider(() => this.ports.provider.begin(redirectUri));
    await this.ports.store.put(sha256Hex(start.state), {
      browserHash: sha256Hex(browserSecret), nonce: start.nonce, codeVerifier: start.codeVerifier, redirectUri, expiresAt: new Date(now.getTime() + SIGN_ON_WINDOW_MS),
    });
    return start.url;
  }

  /** The callback: the state must be one this browser began, once, within the window. */
  async complete(ctx: RequestContext, params: Record<string, string>, browserSecret: string | null): Promise<SignedOn> {
    const pending = params.state ? await this.ports.store.take(sha256Hex(params.state), ctx.now) : null;
    if (!pending || !browserSecret || sha256Hex(browserSecret) !== pending.browserHash) {
      throw new SignOnRefused('sso-state-unknown', 'This sign-on is unknown, already used, expired, or was begun in another browser; begin again at /api/v1/auth/oidc/login.');
    }
    const claims = await this.provider(() => this.ports.provider.finish(pending.redirectUri, params, { state: params.state, nonce: pending.nonce, codeVerifier: pending.codeVerifier }));
    return this.signOn(ctx, claims);
  }

  /**
   * A CLI's session exchange: it obtained an ID token from the provider with its own client (one of
   * VIGIL_OIDC_EXCHANGE_AUDIENCES), issued in the last five minutes; each token opens one session.
   */
  async exchange(ctx: RequestContext, idToken: string): Promise<SignedOn> {
    if (!this.exchangeEnabled) throw refuse.forbidden('Session exchange is off: VIGIL_OIDC_EXCHANGE_AUDIENCES names no client.');
    const claims = await this.provider(() => this.ports.provider.verifyIdToken(idToken, this.ports.policy.exchangeAudiences));
    if (ctx.now.getTime() - claims.issuedAt * 1000 > EXCHANGE_MAX_AGE_MS) {
      throw new SignOnRefused('sso-not-verified', 'This ID token was issued more than five minutes ago; obtain a fresh one.');
    }
    const first = await this.ports.store.markExchanged(sha256Hex(idToken), new Date(claims.expiresAt * 1000), ctx.now);
    if (!first) throw new SignOnRefused('sso-not-verified', 'This ID token was exchanged before; an ID token opens one session.');
    return this.signOn(ctx, claims);
  }

  private async signOn(ctx: RequestContext, claims: SignOnClaims): Promise<SignedOn> {
    const { policy } = this.ports;
    if (policy.requireMfa && !secondFactorStated(claims, policy)) {
      await this.refused(ctx, claims, 'second_factor_missing', null);
      throw new SignOnRefused('sso-second-factor-required',
        `Your identity provider's token states no second factor (amr ${JSON.stringify(claims.amr)}, acr ${JSON.stringify(claims.acr)}); Vigil requires one (VIGIL_OIDC_REQUIRE_MFA). Sign in again with a second factor.`);
    }
    const { account, created } = await this.accountFor(ctx, claims);
    if (!account.active) {
      await this.refused(ctx, claims, 'deactivated', account.username);
      throw new SignOnRefused('sso-account-deactivated', 'Your Vigil account is deactivated.');
    }
    return { ...(await this.ports.sessions.openSession(ctx, account, 'oidc')), created };
  }

  /** The account bound to the subject; else bound now (an existing account of the same name, under the rules) or created. */
  private async accountFor(ctx: RequestContext, claims: SignOnClaims): Promise<{ account: AccountView; created: boolean }> {
    const subjectKey = sha256Hex(`${claims.issuer}\n${claims.subject}`);
    const bound = await this.ports.subjects.accountOf(subjectKey);
    if (bound !== null) {
      const found = await this.ports.accounts.byId(bound);
      if (found) return { account: found.account, created: false };
    }
    const username = usernameFor(claims, subjectKey);
    const existing = await this.ports.accounts.byUsername(username);
    const binding = (accountId: number, via: 'sign_on_created' | 'sign_on_linked'): SsoEvent[] => [{
      type: 'SsoSubjectBound', data: { accountId, subjectKey, issuer: claims.issuer, subject: claims.subject, via, siem: ACCOUNT_CREDENTIALS_SIEM },
    }];
    const conflict = () => new SignOnRefused('sso-link-refused', 'This identity-provider subject or account was bound meanwhile; sign in again.');
    if (existing) {
      const { account } = existing;
      const refusal = linkRefusal({
        roles: account.roles, active: account.active, bound: await this.ports.subjects.isBound(account.id),
        secondFactor: await this.ports.secondFactors.hasSecondFactor(account.id),
      }, this.ports.policy.linkPrivilegedAccounts);
      if (refusal) {
        await this.refused(ctx, claims, refusal.refusal, account.username);
        throw new SignOnRefused('sso-link-refused', `Single sign-on cannot bind you to the Vigil account "${account.username}": ${refusal.detail}. An administrator can help.`);
      }
      await this.ports.commands.transact(ctx, async (attempt) => {
        attempt.record(streams.ssoSubject(subjectKey), binding(account.id, 'sign_on_linked'), 'no_stream');
        attempt.record(streams.ssoAccount(account.id), [{ type: 'SsoAccountReserved', data: { accountId: account.id, subjectKey } }], 'no_stream');
      }, { conflict });
      return { account, created: false };
    }
    const id = await this.ports.ids.next('account');
    const displayName = (claims.name ?? '').trim().slice(0, 200) || username;
    const events = accountDecider.decide(
      { type: 'CreateAccount', id, username, displayName, roles: [this.ports.policy.defaultRole], passwordHash: null },
      accountDecider.initialState(),
    );
    await this.ports.commands.transact(ctx, async (attempt) => {
      attempt.record(streams.username(username), [{ type: 'UsernameReserved', data: { accountId: id, username } }], 'no_stream');
      attempt.record(streams.account(id), events, 'no_stream');
      attempt.record(streams.ssoSubject(subjectKey), binding(id, 'sign_on_created'), 'no_stream');
      attempt.record(streams.ssoAccount(id), [{ type: 'SsoAccountReserved', data: { accountId: id, subjectKey } }], 'no_stream');
    }, { conflict });
    const created = await this.ports.accounts.byId(id);
    if (!created) throw new Error(`The account ${id} created at sign-on is not in the read model.`);
    return { account: created.account, created: true };
  }

  private async refused(ctx: RequestContext, claims: SignOnClaims, reason: Extract<SsoEvent, { type: 'SingleSignOnRefused' }>['data']['reason'], username: string | null): Promise<void> {
    await this.ports.commands.appendAll([{ stream: streams.ssoRefusals, expectedRevision: 'any', events: [{
      type: 'SingleSignOnRefused', data: { reason, issuer: claims.issuer, subject: printableName(claims.subject, 255), username },
    }] }], ctx);
  }

  /** The provider's failures as refusals the route can answer (401 for what did not verify, 502 unreachable). */
  private async provider<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof SignOnFailed)) throw error;
      if (error.kind === 'unreachable') throw new SignOnRefused('sso-provider-unreachable', error.message);
      throw new SignOnRefused('sso-not-verified', error.message);
    }
  }
}

