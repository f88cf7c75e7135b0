import { createRemoteJWKSet, errors as joseErrors, jwtVerify, JWTPayload } from 'jose';
import { BaseClient, custom, errors, generators, Issuer, IdTokenClaims } from 'openid-client';
import { IdentityProvider, SignOnFailed, SignOnStart } from '../../application/identity/sso-ports';
import type { SignOnClaims } from '../../domain/identity/sso';
import type { OidcSettings } from '../config/sso-settings';

/** Every request to the provider (discovery, token, keys) is bounded. */
const PROVIDER_TIMEOUT_MS = 10_000;

/**
 * The identity provider through openid-client 5 (the CommonJS line; Node 20): discovery from
 * VIGIL_OIDC_ISSUER on first use (and again after a failure, so a start never waits on the
 * provider), the authorization code flow with PKCE S256, state and nonce, and openid-client's
 * verification of the ID token (signature against the provider's keys, iss, aud, exp, iat, nonce).
 */
export class OpenIdClientProvider implements IdentityProvider {
  private discovered: Promise<{ issuer: Issuer<BaseClient>; client: BaseClient; keys: ReturnType<typeof createRemoteJWKSet> }> | null = null;

  constructor(private readonly settings: OidcSettings) {
    custom.setHttpOptionsDefaults({ timeout: PROVIDER_TIMEOUT_MS });
  }

  async begin(redirectUri: string): Promise<SignOnStart> {
    const { client } = await this.discover();
    const state = generators.state();
    const nonce = generators.nonce();
    const codeVerifier = generators.codeVerifier();
    const url = client.authorizationUrl({
      scope: this.settings.scopes.join(' '), redirect_uri: redirectUri, response_type: 'code',
      code_challenge: generators.codeChallenge(codeVerifier), code_challenge_method: 'S256', state, nonce,
    });
    return { url, state, nonce, codeVerifier };
  }

  async finish(redirectUri: string, params: Record<string, string>, checks: { state: string; nonce: string; codeVerifier: string }): Promise<SignOnClaims> {
    const { client } = await this.discover();
    try {
      const tokens = await client.callback(redirectUri, params, { state: checks.state, nonce: checks.nonce, code_verifier: checks.codeVerifier, response_type: 'code' });
      const claims = claimsOf(tokens.claims());
      // Providers that keep profile claims out of the ID token give them at userinfo (its sub checked against the token's).
      if (!claims.preferredUsername && !claims.email && tokens.access_token && client.issuer.metadata.userinfo_endpoint) {
        const info = await client.userinfo(tokens);
        const more = claimsOf({ ...info, iss: claims.issuer, sub: claims.subject } as IdTokenClaims);
        return { ...claims, preferredUsername: more.preferredUsername, email: more.email, name: claims.name ?? more.name };
      }
      return claims;
    } catch (error) {
      throw failure(error);
    }
  }

  async verifyIdToken(idToken: string, audiences: readonly string[]): Promise<SignOnClaims & { issuedAt: number; expiresAt: number }> {
    const { issuer, keys } = await this.discover();
    try {
      const { payload } = await jwtVerify(idToken, keys, {
        issuer: issuer.metadata.issuer, audience: [...audiences], requiredClaims: ['sub', 'iat', 'exp'], clockTolerance: 5,
      });
      return { ...claimsOf(payload as IdTokenClaims), issuedAt: Number(payload.iat), expiresAt: Number(payload.exp) };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) throw new SignOnFailed('not_verified', `The ID token does not verify: ${error.message}.`);
      throw failure(error);
    }
  }

  private discover() {
    if (!this.discovered) {
      this.discovered = (async () => {
        const issuer = await Issuer.discover(this.settings.issuer);
        if (!issuer.metadata.jwks_uri) throw new SignOnFailed('unreachable', `The provider at ${this.settings.issuer} publishes no jwks_uri.`);
        const client = new issuer.Client({ client_id: this.settings.clientId, client_secret: this.settings.clientSecret, response_types: ['code'] });
        return { issuer, client, keys: createRemoteJWKSet(new URL(issuer.metadata.jwks_uri), { timeoutDuration: PROVIDER_TIMEOUT_MS }) };
      })().catch((error) => {
        this.discovered = null;
        if (error instanceof SignOnFailed) throw error;
        throw new SignOnFailed('unreachable', `The identity provider's discovery at ${this.settings.issuer} failed: ${error instanceof Error ? error.message : String(error)}.`);
      });
    }
    return this.discovered;
  }
}

function claimsOf(c: IdTokenClaims | JWTPayload): SignOnClaims {
  const text = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : null);
  const amr = Array.isArray(c.amr) ? c.amr.filter((m): m is string => typeof m === 'string') : [];
  return {
    issuer: String(c.iss), subject: String(c.sub), preferredUsername: text(c.preferred_username), email: text(c.email), name: text(c.name), amr, acr: text(c.acr),
  };
}

/** openid-client's errors as the port's: the provider said no, or what came did not verify, or the provider was not reached. */
function failure(error: unknown): Error {
  if (error instanceof SignOnFailed) return error;
  if (error instanceof errors.OPError) return new SignOnFailed('provider_error', `The identity provider refused: ${error.error}${error.error_description ? ` (${error.error_description})` : ''}.`);
  if (error instanceof errors.RPError) return new SignOnFailed('not_verified', `The identity provider's answer does not verify: ${error.message}.`);
  const code = (error as { code?: string })?.code;
  if (code && /^(E[A-Z]+|ERR_)/.test(code)) return new SignOnFailed('unreachable', `The identity provider could not be reached (${code}).`);
  return error instanceof Error ? error : new Error(String(error));
}
