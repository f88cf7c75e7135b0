import { IdentityService } from '../../application/identity/identity-service';
import { SignInThrottle } from '../../application/identity/sign-in-throttle';
import { TeamService } from '../../application/identity/team-service';
import { SettingsService } from '../../application/settings/settings-service';
import { RandomSecretMinter } from '../../infrastructure/crypto/random-secret-minter';
import { ScryptPasswordHasher } from '../../infrastructure/crypto/scrypt-password-hasher';
import { SqlSessionStore } from '../../infrastructure/identity/sql-session-store';
import { AccountQueries } from '../../projections/identity/account-queries';
import { SqlGrantableTargets } from '../../projections/identity/grantable-targets';
import { KeyQueries } from '../../projections/identity/key-queries';
import { SettingsQueries } from '../../projections/identity/settings-queries';
import { TeamQueries } from '../../projections/identity/team-queries';
import { Core } from './core';
import { SsoService } from '../../application/identity/sso-service';
import { OpenIdClientProvider } from '../../infrastructure/identity/openid-client-provider';
import { SqlSignOnStore } from '../../infrastructure/identity/sql-sign-on-store';
import { SsoQueries } from '../../projections/identity/sso-queries';
import { streams } from '../../domain/shared/streams';
import { SecondFactorService } from '../../application/identity/second-factor-service';
import { OtpauthTotp } from '../../infrastructure/crypto/totp';
import { AesGcmSecretBox } from '../../infrastructure/crypto/secret-box';
import { SqlChallengeStore } from '../../infrastructure/identity/sql-challenge-store';
import { SecondFactorQueries } from '../../projections/identity/second-factor-queries';
import { ScimService } from '../../application/identity/scim-service';
import { ScimQueries } from '../../projections/identity/scim-queries';

/**
 * Accounts, sessions, keys, teams and installation settings: the commands (services) over the
 * queries of projections/identity, which the routes also read directly.
 */
export function composeIdentity(core: Core) {
  const { config, db, commands, ids } = core;
  const accountQueries = new AccountQueries(db);
  const keyQueries = new KeyQueries(db);
  const teamQueries = new TeamQueries(db);
  const settingsQueries = new SettingsQueries(db);
  const targets = new SqlGrantableTargets(db);
  const sessionStore = new SqlSessionStore(db);
  const identity: IdentityService = new IdentityService({
    commands, ids, clock: core.clock, accounts: accountQueries, keys: keyQueries, targets, visibilities: core.visibility,
    sessions: sessionStore, passwords: new ScryptPasswordHasher(), secrets: new RandomSecretMinter(),
    throttle: new SignInThrottle(config.signInThrottle),
    policy: { lifetimeMs: config.sessionLifetimeMs, idleMs: config.sessionIdleMs, passwordLogin: config.passwordLogin, oidcIssuer: config.oidcIssuer },
    bootstrapAccount: async () => {
      const [first] = await core.store.readStream(streams.bootstrap);
      return first ? Number((first.data as { accountId: number }).accountId) : null;
    },
    secondFactor: { challengeFor: (ctx, account) => secondFactors.challengeFor(ctx, account) },
  });
  const secondFactorQueries = new SecondFactorQueries(db);
  const secondFactors: SecondFactorService = new SecondFactorService({
    commands, box: new AesGcmSecretBox(config.encryptionKey, config.previousEncryptionKeys), totp: new OtpauthTotp(), challenges: new SqlChallengeStore(db),
    accounts: accountQueries, factors: secondFactorQueries, sessions: identity, maxFailures: config.secondFactorFailures, issuer: config.brandName,
  });
  const scimQueries = new ScimQueries(db);
  const scim = new ScimService({
    commands, ids, accounts: accountQueries, provisioned: scimQueries, secondFactors: secondFactorQueries, identity, sessions: sessionStore, secrets: new RandomSecretMinter(),
    teams: { exists: async (id) => (await teamQueries.list()).some((t) => t.id === id) },
    policy: { defaultRole: config.oidc?.defaultRole ?? 'reader', linkPrivilegedAccounts: config.oidc?.linkPrivilegedAccounts ?? false },
  });
  const sso = config.oidc ? new SsoService({
    commands, ids, provider: new OpenIdClientProvider(config.oidc), store: new SqlSignOnStore(db), subjects: new SsoQueries(db), accounts: accountQueries,
    secondFactors: secondFactorQueries, sessions: identity, policy: config.oidc,
  }) : null;
  return {
    identity, accountQueries, keyQueries, sso, secondFactors, secondFactorQueries, scim, scimQueries,
    teams: new TeamService(commands, ids, accountQueries, targets), teamQueries,
    settings: new SettingsService(commands, settingsQueries), settingsQueries,
  };
}

export type IdentityContext = ReturnType<typeof composeIdentity>;
