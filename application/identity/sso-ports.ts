import type { SignOnClaims } from '../../domain/identity/sso';

/** A sign-on begun: where to send the browser and what the callback must find again. */
export interface SignOnStart {
  url: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** Why the provider's answer was not taken: the provider refused, or what it sent did not verify. */
export class SignOnFailed extends Error {
  constructor(readonly kind: 'provider_error' | 'not_verified' | 'unreachable', message: string) {
    super(message);
    this.name = 'SignOnFailed';
  }
}

/**
 * The identity provider, as openid-client speaks to it (infrastructure/identity/openid-client-provider.ts):
 * discovery, the authorization request with PKCE (S256) and nonce, the code exchange with the ID
 * token verified (signature, issuer, audience, expiry, nonce). Throws SignOnFailed.
 */
export interface IdentityProvider {
  begin(redirectUri: string): Promise<SignOnStart>;
  finish(redirectUri: string, params: Record<string, string>, checks: { state: string; nonce: string; codeVerifier: string }): Promise<SignOnClaims>;
  /** An ID token a CLI obtained itself: signature, issuer, expiry, and an audience among `audiences`. */
  verifyIdToken(idToken: string, audiences: readonly string[]): Promise<SignOnClaims & { issuedAt: number; expiresAt: number }>;
}

export interface PendingSignOn {
  browserHash: string;
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
  expiresAt: Date;
}

/** Sign-ons under way and exchanged ID tokens: operational state (ADR 0004), in SQL tables. */
export interface SignOnStore {
  put(stateHash: string, pending: PendingSignOn): Promise<void>;
  /** The pending sign-on, removed: a state is used once. */
  take(stateHash: string, now: Date): Promise<PendingSignOn | null>;
  /** false when that token was exchanged before (an ID token opens one session). */
  markExchanged(tokenHash: string, expiresAt: Date, now: Date): Promise<boolean>;
}

/** The bindings read model (projections/identity/sso-queries.ts). */
export interface SubjectLookup {
  accountOf(subjectKey: string): Promise<number | null>;
  isBound(accountId: number): Promise<boolean>;
}

/** Whether an account holds a local second factor (TOTP enrolled). */
export interface SecondFactorLookup {
  hasSecondFactor(accountId: number): Promise<boolean>;
}

/** TOTP (RFC 6238) and the random values of the second factor (infrastructure/crypto/totp.ts, otpauth). */
export interface TotpCodes {
  /** A new shared secret, base32. */
  newSecret(): string;
  /** The otpauth:// URI an authenticator app reads (as a QR code). */
  uri(secret: string, issuer: string, label: string): string;
  /** The time step of `code` under `secret` at `now` (one step of drift either way), or null. */
  stepOf(secret: string, code: string, now: Date): number | null;
  /** Single-use backup codes, high entropy, readable (xxxxx-xxxxx-xx). */
  newBackupCodes(count: number): string[];
  /** A sign-in challenge's bearer value. */
  newChallenge(): string;
}

/** Sign-in challenges and used TOTP steps: operational state (v027). */
export interface ChallengeStore {
  open(challengeHash: string, accountId: number, expiresAt: Date): Promise<void>;
  find(challengeHash: string, now: Date): Promise<{ accountId: number; failures: number } | null>;
  /** Counts a failure; answers the count. */
  fail(challengeHash: string): Promise<number>;
  /** Removes it; false when another request removed it first. */
  close(challengeHash: string): Promise<boolean>;
  closeAllOf(accountId: number): Promise<void>;
  /** Takes the step when it is later than the account's last used one (a code counts once). */
  takeStep(accountId: number, step: number): Promise<boolean>;
}
