import { Type } from '@sinclair/typebox';
import { randomBytes } from 'node:crypto';
import { Response } from 'express';
import { SignOnRefusal, SignOnRefused } from '../../../application/identity/sso-service';
import { isSessionSecret } from '../../../domain/identity/bearer-secret';
import { HttpProblem } from '../problem';
import { RouteDef, VigilRequest } from '../route';
import { Services } from '../services';
import { Text } from '../text';

const tag = 'Single sign-on';
/** Binds a sign-on to the browser that began it (login CSRF): only its SHA-256 is stored. */
const COOKIE = 'vigil_sso';
const COOKIE_PATH = '/api/v1/auth/oidc';
const CALLBACK_PATH = '/api/v1/auth/oidc/callback';
/**
 * The web interface's sign-on (issue #16): the login link names where in the interface to return
 * (`return_to`, kept in this cookie beside the binding one); the callback then hands the session
 * to the page through a short-lived HttpOnly cookie that only POST /auth/oidc/handoff reads, so
 * that the token never appears in an address, and the page takes it as it takes a password's.
 */
const RETURN_COOKIE = 'vigil_sso_return';
const HANDOFF_COOKIE = 'vigil_sso_session';
const HANDOFF_PATH = '/api/v1/auth/oidc/handoff';
const HANDOFF_SECONDS = 60;
/** The interface's page, optionally with its route after '#': nothing else, so no redirect leaves the installation. */
const RETURN_TO = /^\/(#\/[\x21-\x7e]*)?$/;

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
      query: Type.Object({
        return_to: Type.Optional(Text({ max: 2000, description: "The web interface's sign-on: `/` or `/#/<route>`, where the interface returns once signed on (the callback then redirects instead of answering JSON)" })),
      }),
      handler: async (req, res) => {
        const returnTo = req.query.return_to as string | undefined;
        if (returnTo !== undefined && !RETURN_TO.test(returnTo)) throw new HttpProblem(400, 'Bad Request', 'return_to must be the interface\'s page: / or /#/<route>.');
        const browser = randomBytes(32).toString('base64url');
        const redirectUri = redirectUriFor(req);
        const url = await answer(res, () => sso.begin(req.ctx!.now, redirectUri, browser));
        const secure = redirectUri.startsWith('https:') ? '; Secure' : '';
        res.setHeader('Set-Cookie', [
          `${COOKIE}=${browser}; Path=${COOKIE_PATH}; Max-Age=600; HttpOnly; SameSite=Lax${secure}`,
          // Without return_to a former interface sign-on's choice must not linger: the callback answers JSON.
          returnTo !== undefined ? `${RETURN_COOKIE}=${encodeURIComponent(returnTo)}; Path=${COOKIE_PATH}; Max-Age=600; HttpOnly; SameSite=Lax${secure}` : `${RETURN_COOKIE}=; Path=${COOKIE_PATH}; Max-Age=0; HttpOnly; SameSite=Lax${secure}`,
        ]);
        res.status(302).setHeader('Location', url);
        res.end();
      },
    },
    {
      method: 'get', path: '/auth/oidc/callback', tag, auth: 'public', query: CallbackQuery,
      summary: "The identity provider's redirect: after the ID token verifies, answers a session {token, expiresAt, account, created}; begun by the web interface (login with return_to), 302 back to it instead",
      responses: {
        200: { description: 'Signed on', schema: SignedOnAnswer },
        302: { description: 'Begun by the web interface: back to it, `/?signed_on=1#...` (the session waits at POST /auth/oidc/handoff for a minute) or `/?sign_on_refused=<problem type>#...`' },
        400: { description: 'Unknown, used, expired or foreign state (problem sso-state-unknown)' },
        401: { description: 'The provider refused, or its answer did not verify (sso-not-verified)' },
        403: { description: 'No second factor stated (sso-second-factor-required), an account the linking rules keep (sso-link-refused), or a deactivated account' },
      },
      handler: async (req, res) => {
        const returnTo = cookieOf(req, RETURN_COOKIE);
        const secure = redirectUriFor(req).startsWith('https:') ? '; Secure' : '';
        const spent = [`${COOKIE}=; Path=${COOKIE_PATH}; Max-Age=0; HttpOnly; SameSite=Lax${secure}`, `${RETURN_COOKIE}=; Path=${COOKIE_PATH}; Max-Age=0; HttpOnly; SameSite=Lax${secure}`];
        if (returnTo === null || !RETURN_TO.test(returnTo)) {
          const signedOn = await answer(res, () => sso.complete(req.ctx!, req.query as Record<string, string>, cookieOf(req, COOKIE)));
          res.setHeader('Set-Cookie', spent);
          return signedOn;
        }
        const [, hash = ''] = /^\/(#.*)?$/.exec(returnTo)!;
        res.setHeader('Cache-Control', 'no-store');
        try {
          const signedOn = await sso.complete(req.ctx!, req.query as Record<string, string>, cookieOf(req, COOKIE));
          res.setHeader('Set-Cookie', [...spent, `${HANDOFF_COOKIE}=${signedOn.token}; Path=${HANDOFF_PATH}; Max-Age=${HANDOFF_SECONDS}; HttpOnly; SameSite=Strict${secure}`]);
          res.status(302).setHeader('Location', `/?signed_on=1${hash}`);
        } catch (error) {
          if (!(error instanceof SignOnRefused)) throw error;
          res.setHeader('Set-Cookie', spent);
          res.status(302).setHeader('Location', `/?sign_on_refused=${error.refusal}${hash}`);
        }
        res.end();
      },
    },
    {
      method: 'post', path: '/auth/oidc/handoff', tag, bodyLimit: 'signIn', auth: 'public',
      summary: "The web interface takes the session its sign-on opened: the callback's short-lived HttpOnly cookie, answered once as {token, expiresAt} and cleared",
      body: Type.Object({}, { additionalProperties: false }),
      responses: {
        200: { description: 'The session', schema: Type.Object({ token: Type.String(), expiresAt: Type.String() }) },
        401: { description: 'No sign-on waits for this browser (none, taken, or older than a minute), or its session ended' },
      },
      handler: async (req, res) => {
        res.setHeader('Cache-Control', 'no-store');
        const token = cookieOf(req, HANDOFF_COOKIE);
        const secure = req.secure ? '; Secure' : '';
        res.setHeader('Set-Cookie', `${HANDOFF_COOKIE}=; Path=${HANDOFF_PATH}; Max-Age=0; HttpOnly; SameSite=Strict${secure}`);
        // Only a session secret that still signs in is handed over: the cookie is no way in of its own.
        const principal = token && isSessionSecret(token) ? await s.identity.authenticate(token) : null;
        if (!token || !principal) throw new HttpProblem(401, 'Unauthorized', 'No single sign-on waits for this browser: sign in again.');
        return { token, expiresAt: await s.identity.sessionExpiry(token) };
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
