import * as fs from 'node:fs';
import { isRole, Role } from '../../domain/identity/roles';
import { parseBoolean, SettingError } from './units';

/**
 * Single sign-on settings (spec 1 §5, §8.3; issue #14), read by loadConfig and validated at start.
 * docs/identity-providers.md says how to register Vigil with a provider.
 */
export interface OidcSettings {
  /** VIGIL_OIDC_ISSUER: discovery reads `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  /** VIGIL_OIDC_CLIENT_ID and VIGIL_OIDC_CLIENT_SECRET (or _FILE): Vigil as a confidential client. */
  clientId: string;
  clientSecret: string;
  /** VIGIL_OIDC_REDIRECT_URI; unset: VIGIL_PUBLIC_URL + /api/v1/auth/oidc/callback, else the request's own origin. */
  redirectUri: string | null;
  /** VIGIL_OIDC_SCOPES: asked of the provider; openid is always among them. */
  scopes: string[];
  /** VIGIL_OIDC_DEFAULT_ROLE: the role of an account created at its first sign-on (default reader). */
  defaultRole: Role;
  /** VIGIL_OIDC_REQUIRE_MFA with VIGIL_OIDC_MFA_AMR (RFC 8176 values) and VIGIL_OIDC_MFA_ACR. */
  requireMfa: boolean;
  mfaAmr: string[];
  mfaAcr: string[];
  /** VIGIL_OIDC_LINK_PRIVILEGED_ACCOUNTS: may a first sign-on bind an existing privileged account (never one with a local second factor). */
  linkPrivilegedAccounts: boolean;
  /** VIGIL_OIDC_EXCHANGE_AUDIENCES: client ids whose ID tokens POST /auth/oidc/token-exchange accepts (CLIs); empty: exchange off. */
  exchangeAudiences: string[];
}

type Env = Record<string, string | undefined>;

export function loadOidcSettings(env: Env): OidcSettings | null {
  const read = (name: string) => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const list = (name: string, fallback: string) => (read(name) ?? fallback).split(',').map((s) => s.trim()).filter(Boolean);
  const issuer = read('VIGIL_OIDC_ISSUER');
  if (!issuer) return null;
  if (!/^https?:\/\/[^\s]+$/i.test(issuer)) throw new SettingError('VIGIL_OIDC_ISSUER', 'expected the issuer URL, e.g. https://idp.example.com/realms/main.');
  const clientId = read('VIGIL_OIDC_CLIENT_ID');
  if (!clientId) throw new SettingError('VIGIL_OIDC_CLIENT_ID', 'VIGIL_OIDC_ISSUER is set without the client id Vigil is registered under at the provider.');
  const inline = read('VIGIL_OIDC_CLIENT_SECRET');
  const file = read('VIGIL_OIDC_CLIENT_SECRET_FILE');
  if (inline && file) throw new SettingError('VIGIL_OIDC_CLIENT_SECRET', 'VIGIL_OIDC_CLIENT_SECRET and VIGIL_OIDC_CLIENT_SECRET_FILE are both set; set only one of them.');
  let clientSecret = inline;
  if (file) {
    try {
      clientSecret = fs.readFileSync(file, 'utf8').trim();
    } catch {
      throw new SettingError('VIGIL_OIDC_CLIENT_SECRET_FILE', `the file "${file}" cannot be read; name a readable file holding the client secret.`);
    }
  }
  if (!clientSecret) throw new SettingError('VIGIL_OIDC_CLIENT_SECRET', 'VIGIL_OIDC_ISSUER is set without the client secret (VIGIL_OIDC_CLIENT_SECRET or VIGIL_OIDC_CLIENT_SECRET_FILE).');
  const redirectUri = read('VIGIL_OIDC_REDIRECT_URI') ?? null;
  if (redirectUri && !/^https?:\/\/[^\s]+$/i.test(redirectUri)) throw new SettingError('VIGIL_OIDC_REDIRECT_URI', 'expected an http(s) URL ending in /api/v1/auth/oidc/callback.');
  const defaultRole = read('VIGIL_OIDC_DEFAULT_ROLE') ?? 'reader';
  if (!isRole(defaultRole)) throw new SettingError('VIGIL_OIDC_DEFAULT_ROLE', `"${defaultRole}" is not a role; write one of administrator, ciso, security_lead, platform_governor, auditor, writer, reader.`);
  const bool = (name: string) => (read(name) === undefined ? false : parseBoolean(name, read(name)!));
  const scopes = [...new Set(['openid', ...list('VIGIL_OIDC_SCOPES', 'openid,profile,email')])];
  return {
    issuer, clientId, clientSecret, redirectUri, scopes, defaultRole,
    requireMfa: bool('VIGIL_OIDC_REQUIRE_MFA'),
    mfaAmr: list('VIGIL_OIDC_MFA_AMR', 'mfa,otp,hwk,fido'),
    mfaAcr: list('VIGIL_OIDC_MFA_ACR', ''),
    linkPrivilegedAccounts: bool('VIGIL_OIDC_LINK_PRIVILEGED_ACCOUNTS'),
    exchangeAudiences: list('VIGIL_OIDC_EXCHANGE_AUDIENCES', ''),
  };
}

/** VIGIL_SECOND_FACTOR_FAILURES: wrong codes a sign-in challenge takes before it is destroyed (VGL-SEC-008); default 5. */
export function loadSecondFactorFailures(env: Env): number {
  const text = env.VIGIL_SECOND_FACTOR_FAILURES?.trim();
  if (!text) return 5;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 100) throw new SettingError('VIGIL_SECOND_FACTOR_FAILURES', `"${text}" is not a whole number from 1 to 100.`);
  return Number(text);
}
