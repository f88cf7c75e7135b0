import { IdentityService } from '../../application/identity/identity-service';
import { SignInThrottle } from '../../application/identity/sign-in-throttle';
import { TeamService } from '../../application/identity/team-service';
import { SettingsService } from '../../application/settings/settings-service';
import { Core } from './core';

/** Accounts, sessions, keys, teams and installation settings. */
export function composeIdentity(core: Core) {
  const { config } = core;
  const identity = new IdentityService(core.db, core.visibility, core.commands, core.ids, core.clock,
    { lifetimeMs: config.sessionLifetimeMs, idleMs: config.sessionIdleMs, passwordLogin: config.passwordLogin, oidcIssuer: config.oidcIssuer },
    new SignInThrottle(config.signInThrottle));
  return { identity, teams: new TeamService(core.db, core.commands, core.ids), settings: new SettingsService(core.db, core.commands) };
}

export type IdentityContext = ReturnType<typeof composeIdentity>;
