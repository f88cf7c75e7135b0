import { Type } from '@sinclair/typebox';
import { randomBytes } from 'node:crypto';
import { Response } from 'express';
import { SignOnRefusal, SignOnRefused } from '../../../application/identity/sso-service';
import { HttpProblem } from '../problem';
import { RouteDef, VigilRequest } from '../route';
import { Services } from '../services';
import { Text } from '../text';

const tag = 'Single sign-on';
/** Binds a sign-on to the browser that began it (login CSRF): only its SHA-256 is stored. */
const COOKIE = 'vigil_sso';
const COOKIE_PATH = '/api/v1/auth/oidc';
const CALLBACK_PATH = '/api/v1/auth/oidc/callback';

const STATUS: Record<SignOnRefusal, { status: number; title: string }> = {
  'sso-state-unknown': { status: 400, title: 'Bad Request' },
  'sso-not-verified': { status: 401, title: 'Unauthorized' },
  'sso-second-factor-required': { status: 403, title: 'Forbidden' },
  'sso-link-refused': { status: 403, title: 'Forbidden' },
  'sso-account-deactivated': { status: 403, title: 'Forbidden' },
  'sso-provider-unreachable': { status: 502, title: 'Bad Gateway' },
};

const SignedOnAnswer = Type.Object({ token: Type.String(), expiresAt: Type.String(), account: Type.Object({}, { additionalProperties: true }), created: Type.Boolean() });

/** Parameters an authorization response may carry (RFC 6749 §4.1.2, RFC 9207 iss, OpenID session_state). */
const CallbackQuery = Type.Object({
  code: Type.Optional(Text({ max: 4096 })), state: Type.Optional(Text({ max: 512 })), iss: Type.Optional(Text({ max: 1000 })),
  session_state: Type.Optional(Text({ max: 1000 })), error: Type.Optional(Text({ max: 200 })),
  error_description: Type.Optional(Text({ max: 2000 })), error_uri: Type.Optional(Text({ max: 2000 })),
});

function cookieOf(req: VigilRequest, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return null;
}

async function answer<T>(res: Response, work: () => Promise<T>): Promise<T> {
  res.setHeader('Cache-Control', 'no-store');
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof SignOnRefused)) throw error;
    const { status, title } = STATUS[error.refusal];
    throw new HttpProblem(status, title, error.message, error.refusal);
  }
}

/**
 * Single sign-on (issue #14; docs/identity-providers.md): the browser flow and the CLI's session
 * exchange. Declared only while VIGIL_OIDC_ISSUER is set: otherwise these paths answer 404.
 */
export function singleSignOnRoutes(s: Services): RouteDef[] {
  const sso = s.sso;
  if (!sso) return [];
  const redirectUriFor = (req: VigilRequest) => s.config.oidc?.redirectUri
    ?? (s.config.publicUrl ? `${s.config.publicUrl.replace(/\/+$/, '')}${CALLBACK_PATH}` : `${req.protocol}://${req.headers.host}${CALLBACK_PATH}`);
  return [
    {
      method: 'get', path: '/auth/oidc/login', tag, summary: "Begin single sign-on: 302 to the identity provider's authorization endpoint (code flow, PKCE S256, nonce)", auth: 'public',
      responses: { 302: { description: 'To the identity provider' }, 502: { description: 'The provider cannot be reached' } },
      handler: async (req, res) => {
        const browser = randomBytes(32).toString('base64url');
        const redirectUri = redirectUriFor(req);
        const url = await answer(res, () => sso.begin(req.ctx!.now, redirectUri, browser));
        const secure = redirectUri.startsWith('https:') ? '; Secure' : '';
        res.setHeader('Set-Cookie', `${COOKIE}=${browser}; Path=${COOKIE_PATH}; Max-Age=600; HttpOnly; SameSite=Lax${secure}`);
        res.status(302).setHeader('Location', url);
        res.end();
      },
    },
    {
      method: 'get', path: '/auth/oidc/callback', tag, summary: "The identity provider's redirect: after the ID token verifies, answers a session {token, expiresAt, account, created}", auth: 'public',
      query: CallbackQuery,
      responses: {
        200: { description: 'Signed on', schema: SignedOnAnswer },
        400: { description: 'Unknown, used, expired or foreign state (problem sso-state-unknown)' },
        401: { description: 'The provider refused, or its answer did not verify (sso-not-verified)' },
        403: { description: 'No second factor stated (sso-second-factor-required), an account the linking rules keep (sso-link-refused), or a deactivated account' },
      },
      handler: async (req, res) => {
        const signedOn = await answer(res, () => sso.complete(req.ctx!, req.query as Record<string, string>, cookieOf(req, COOKIE)));
        res.setHeader('Set-Cookie', `${COOKIE}=; Path=${COOKIE_PATH}; Max-Age=0; HttpOnly; SameSite=Lax`);
        return signedOn;
      },
    },
    {
      method: 'post', path: '/auth/oidc/token-exchange', tag, bodyLimit: 'signIn', auth: 'public',
      summary: "A CLI's session exchange: an ID token it obtained from the provider with its own client (VIGIL_OIDC_EXCHANGE_AUDIENCES), issued in the last five minutes, for a session",
      body: Type.Object({ idToken: Text({ minLength: 1, max: 8192 }) }, { additionalProperties: false }),
      responses: {
        200: { description: 'Signed on', schema: SignedOnAnswer },
        401: { description: 'The token does not verify, is too old or was exchanged before' },
        403: { description: 'Exchange off, no second factor stated, or an account the linking rules keep' },
      },
      handler: async (req, res) => answer(res, () => sso.exchange(req.ctx!, req.body.idToken)),
    },
  ];
}
