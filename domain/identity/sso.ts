import { DomainEvent } from '../shared/decider';
import { USERNAME_PATTERN } from './account';
import { Role } from './roles';

/** What Vigil takes from a verified ID token (issuer, audience, expiry and nonce already checked). */
export interface SignOnClaims {
  issuer: string;
  subject: string;
  preferredUsername: string | null;
  email: string | null;
  name: string | null;
  /** RFC 8176 authentication method references the token states. */
  amr: string[];
  acr: string | null;
}

/** VIGIL_OIDC_REQUIRE_MFA, VIGIL_OIDC_MFA_AMR, VIGIL_OIDC_MFA_ACR. */
export interface MfaPolicy {
  requireMfa: boolean;
  mfaAmr: readonly string[];
  mfaAcr: readonly string[];
}

/** Spec 2 §6: a sign-on that creates or binds an account changes its credentials. */
export const ACCOUNT_CREDENTIALS_SIEM = { signature: 'VGL-SEC-010', name: 'Account privileges or credentials changed', severity: 6 } as const;

/**
 * A token states a second factor when one of its `amr` values is among the configured RFC 8176
 * values, or its `acr` is one of the configured ones (S1.8.3-27, -28).
 */
export function secondFactorStated(claims: Pick<SignOnClaims, 'amr' | 'acr'>, policy: MfaPolicy): boolean {
  if (claims.amr.some((m) => policy.mfaAmr.includes(m))) return true;
  return claims.acr !== null && policy.mfaAcr.includes(claims.acr);
}

/**
 * Accounts whose binding to a provider's subject needs VIGIL_OIDC_LINK_PRIVILEGED_ACCOUNTS: those
 * that administer, settle findings, govern or read the audit trail. Writers and readers are not.
 */
export const PRIVILEGED_ROLES: readonly Role[] = ['administrator', 'ciso', 'security_lead', 'platform_governor', 'auditor'];

export function isPrivileged(roles: readonly Role[]): boolean {
  return roles.some((r) => PRIVILEGED_ROLES.includes(r));
}

/** An existing account a first sign-on (or SCIM) would bind to a subject, as the linking rules see it. */
export interface LinkCandidate {
  roles: readonly Role[];
  active: boolean;
  /** It holds a local second factor (TOTP). */
  secondFactor: boolean;
  /** It is already bound to a subject (of this or another provider). */
  bound: boolean;
}

export type LinkRefusal = 'already_bound' | 'local_second_factor' | 'privileged' | 'deactivated';

/**
 * The linking rules (spec 1 §5, S1.5-23, -24) as a table consulted in order: the first row that
 * holds refuses. An account with a local second factor is never bound, whatever the setting: the
 * provider's sign-on would step around the factor its holder chose.
 */
export const LINK_RULES: ReadonlyArray<{ refusal: LinkRefusal; holds: (c: LinkCandidate, linkPrivileged: boolean) => boolean; detail: string }> = [
  { refusal: 'already_bound', holds: (c) => c.bound, detail: 'the account of that name is bound to another identity-provider subject' },
  { refusal: 'local_second_factor', holds: (c) => c.secondFactor, detail: 'the account of that name has a local second factor; it is never bound to an identity-provider subject' },
  { refusal: 'privileged', holds: (c, link) => !link && isPrivileged(c.roles), detail: 'the account of that name is privileged and VIGIL_OIDC_LINK_PRIVILEGED_ACCOUNTS is off' },
  { refusal: 'deactivated', holds: (c) => !c.active, detail: 'the account of that name is deactivated' },
];

export function linkRefusal(candidate: LinkCandidate, linkPrivileged: boolean): { refusal: LinkRefusal; detail: string } | null {
  const rule = LINK_RULES.find((r) => r.holds(candidate, linkPrivileged));
  return rule ? { refusal: rule.refusal, detail: rule.detail } : null;
}

/**
 * The user name an account created at its first sign-on gets: the provider's preferred_username,
 * else its e-mail address, when Vigil's user-name rule accepts it; else "sso-" and the start of
 * the subject's digest (given by the caller: the domain has no hashing).
 */
export function usernameFor(claims: Pick<SignOnClaims, 'preferredUsername' | 'email'>, subjectDigest: string): string {
  for (const candidate of [claims.preferredUsername, claims.email]) {
    if (candidate && USERNAME_PATTERN.test(candidate)) return candidate;
  }
  return `sso-${subjectDigest.slice(0, 16)}`;
}

/**
 * The binding of a provider's subject to an account: recorded on the subject's own stream
 * (`sso-subject-<digest>`, no_stream: one account per subject) and reserved on the account's
 * (`sso-account-<id>`, no_stream: one subject per account), in one commit.
 */
export type SsoEvent =
  | DomainEvent<'SsoSubjectBound', { accountId: number; subjectKey: string; issuer: string; subject: string; via: 'sign_on_created' | 'sign_on_linked' | 'scim'; siem: typeof ACCOUNT_CREDENTIALS_SIEM }>
  | DomainEvent<'SsoAccountReserved', { accountId: number; subjectKey: string }>
  | DomainEvent<'SingleSignOnRefused', { reason: 'second_factor_missing' | LinkRefusal; issuer: string; subject: string; username: string | null }>;
