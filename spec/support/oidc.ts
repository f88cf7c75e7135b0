import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { createInterface } from 'node:readline';

export const IDP_CLIENT = { id: 'vigil', secret: 'vigil-client-secret-for-specs-only' };
export const CLI_CLIENT = { id: 'vigil-cli', redirect: 'http://127.0.0.1/cli-callback' };

export interface RunningIdp {
  issuer: string;
  /** The settings that point Vigil at this provider. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * node-oidc-provider on a loopback port (spec/support/oidc-idp.mjs): Vigil's confidential client
 * and a public CLI client, PKCE required, real discovery and signed ID tokens.
 */
export async function startIdp(): Promise<RunningIdp> {
  const clients = [
    { client_id: IDP_CLIENT.id, client_secret: IDP_CLIENT.secret, redirect_uris: ['http://127.0.0.1/api/v1/auth/oidc/callback'], grant_types: ['authorization_code'], response_types: ['code'] },
    { client_id: CLI_CLIENT.id, token_endpoint_auth_method: 'none', redirect_uris: [CLI_CLIENT.redirect], grant_types: ['authorization_code'], response_types: ['code'] },
  ];
  const child: ChildProcess = spawn(process.execPath, [path.join(__dirname, 'oidc-idp.mjs')], {
    env: { ...process.env, IDP_CLIENTS: JSON.stringify(clients), NODE_ENV: 'test' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => { stderr += String(d); });
  const issuer = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve(JSON.parse(line).issuer));
    child.once('exit', (code) => reject(new Error(`the identity provider stopped (${code}): ${stderr}`)));
  });
  return {
    issuer,
    env: { VIGIL_OIDC_ISSUER: issuer, VIGIL_OIDC_CLIENT_ID: IDP_CLIENT.id, VIGIL_OIDC_CLIENT_SECRET: IDP_CLIENT.secret },
    async stop() {
      if (child.exitCode !== null) return;
      await new Promise<void>((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); });
    },
  };
}

/** A browser reduced to what the flow needs: a cookie jar per host and redirects followed by hand. */
export class Browser {
  private readonly jar = new Map<string, Map<string, string>>();

  async get(url: string): Promise<Response> {
    const u = new URL(url);
    const cookies = [...(this.jar.get(u.host) ?? new Map()).entries()].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { redirect: 'manual', headers: cookies ? { cookie: cookies } : {} });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const jar = this.jar.get(u.host) ?? new Map<string, string>();
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /max-age=0/i.test(line)) jar.delete(name); else jar.set(name, value);
      this.jar.set(u.host, jar);
    }
    return res;
  }

  /** Follows redirects from `url` until one leads to a URL `stop` accepts (answers that URL), or a non-redirect. */
  async follow(url: string, stop: (next: string) => boolean = () => false): Promise<{ url: string; res: Response | null }> {
    let current = url;
    for (let hops = 0; hops < 10; hops++) {
      if (stop(current)) return { url: current, res: null };
      const res = await this.get(current);
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || !location) return { url: current, res };
      await res.arrayBuffer();
      current = new URL(location, current).toString();
    }
    throw new Error(`too many redirects from ${url}`);
  }
}

/**
 * The whole browser flow: Vigil's login, the provider's authorization endpoint, its login page
 * (signing `login` in with `amr`/`acr`), back to Vigil's callback. Answers the callback's answer.
 */
export async function signOn(browser: Browser, vigilUrl: string, who: { login: string; amr?: string[]; acr?: string }): Promise<{ status: number; body: any }> {
  const toInteraction = await browser.follow(`${vigilUrl}/api/v1/auth/oidc/login`, (u) => u.includes('/interaction/'));
  const interaction = new URL(toInteraction.url);
  interaction.searchParams.set('login', who.login);
  if (who.amr) interaction.searchParams.set('amr', who.amr.join(','));
  if (who.acr) interaction.searchParams.set('acr', who.acr);
  const done = await browser.follow(interaction.toString());
  const text = await done.res!.text();
  let body: unknown = text;
  try { body = JSON.parse(text); } catch { /* not JSON */ }
  return { status: done.res!.status, body };
}

/** A CLI's own sign-in at the provider (public client, PKCE), answering the ID token it receives. */
export async function cliIdToken(idp: RunningIdp, login: string, amr?: string[]): Promise<string> {
  const { createHash, randomBytes } = await import('node:crypto');
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const authorize = new URL(`${idp.issuer}/auth`);
  for (const [k, v] of Object.entries({ client_id: CLI_CLIENT.id, response_type: 'code', scope: 'openid profile email', redirect_uri: CLI_CLIENT.redirect, code_challenge: challenge, code_challenge_method: 'S256', state: 'cli-state', nonce: 'cli-nonce' })) {
    authorize.searchParams.set(k, v);
  }
  const browser = new Browser();
  const toInteraction = await browser.follow(authorize.toString(), (u) => u.includes('/interaction/'));
  const interaction = new URL(toInteraction.url);
  interaction.searchParams.set('login', login);
  if (amr) interaction.searchParams.set('amr', amr.join(','));
  const back = await browser.follow(interaction.toString(), (u) => u.startsWith(CLI_CLIENT.redirect));
  const code = new URL(back.url).searchParams.get('code');
  if (!code) throw new Error(`no code: ${back.url}`);
  const token = await fetch(`${idp.issuer}/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: CLI_CLIENT.redirect, client_id: CLI_CLIENT.id, code_verifier: verifier }),
  });
  const answer = await token.json() as { id_token?: string };
  if (!answer.id_token) throw new Error(`no ID token: ${JSON.stringify(answer)}`);
  return answer.id_token;
}
