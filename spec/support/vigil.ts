import { AddressInfo } from 'node:net';
import winston from 'winston';
import { ManualClock } from '../../application/ports/clock';
import { Config, loadConfig } from '../../infrastructure/config/config';
import { compose, Overrides, prepare } from '../../interfaces/composition/root';
import { createApp } from '../../interfaces/http/app';
import { allRoutes } from '../../interfaces/http/routes';
import { createHttpServer } from '../../interfaces/http/ops/http-server';
import { Services } from '../../interfaces/http/services';
import { createTestDatabase, engineAvailable, TestDatabase, TestEngine } from './databases';

export const ADMIN = { username: 'admin', password: 'correct-horse-battery' };

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RunningVigil {
  url: string;
  services: Services;
  config: Config;
  clock: ManualClock | null;
  database: TestDatabase;
  request<T = any>(method: string, path: string, options?: { token?: string | null; apiKey?: string; body?: unknown; raw?: string | Buffer; contentType?: string; headers?: Record<string, string> }): Promise<Answer<T>>;
  signIn(username?: string, password?: string): Promise<string>;
  /** Another account with these roles; answers its session token and id. */
  account(roles: string[], username?: string): Promise<{ id: number; token: string; username: string }>;
  key(token: string, body: Record<string, unknown>): Promise<{ id: number; key: string }>;
  eventCount(): Promise<number>;
  stop(options?: { keepDatabase?: boolean }): Promise<void>;
}

let counter = 0;

/**
 * A real Vigil on a loopback port over a fresh database (PGlite by default), as `npm start` builds
 * it, with a bootstrap administrator. Tests talk to it over HTTP only.
 */
export async function startVigil(options: { engine?: TestEngine; env?: Record<string, string>; clock?: ManualClock; database?: TestDatabase; overrides?: Pick<Overrides, 'scanExecutor' | 'normaliser'>; logger?: winston.Logger } = {}): Promise<RunningVigil> {
  const engine = options.engine ?? 'pglite';
  if (!(await engineAvailable(engine))) throw new Error(`${engine} not reachable`);
  const database = options.database ?? (await createTestDatabase(engine, { migrate: false }));
  const config = loadConfig({
    VIGIL_BOOTSTRAP_USERNAME: ADMIN.username, VIGIL_BOOTSTRAP_PASSWORD: ADMIN.password, VIGIL_PORT: '0', VIGIL_LOG_LEVEL: 'error',
    VIGIL_DATA_DIR: '/nonexistent', ...options.env,
  });
  const logger = options.logger ?? winston.createLogger({ level: process.env.VIGIL_TEST_LOG ?? 'error', transports: [new winston.transports.Console()] });
  const services = compose(config, { ...options.overrides, database: database.db, clock: options.clock, logger });
  await prepare(services);
  services.projections.start();
  const { app } = createApp(config, services, allRoutes(services));
  const server = createHttpServer(app, config.ops);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const request: RunningVigil['request'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.apiKey) headers['x-api-key'] = o.apiKey;
    let body: string | Buffer | undefined;
    if (o.raw !== undefined) { body = o.raw; headers['content-type'] = o.contentType ?? 'application/octet-stream'; }
    else if (o.body !== undefined) { body = JSON.stringify(o.body); headers['content-type'] = o.contentType ?? 'application/json'; }
    const res = await fetch(`${url}${path.startsWith('/api/v1/') || path.startsWith('/v3') || path.startsWith('/swagger') ? path : `/api/v1${path}`}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
    return { status: res.status, body: parsed as any, headers: res.headers, text };
  };
  const signIn = async (username = ADMIN.username, password = ADMIN.password) => {
    const r = await request('POST', '/auth/sign-in', { body: { username, password } });
    if (r.status !== 200) throw new Error(`sign-in failed: ${r.status} ${r.text}`);
    return r.body.token as string;
  };
  let adminToken: string;
  return {
    url, services, config, clock: options.clock ?? null, database, request, signIn,
    async account(roles, username = `user${++counter}`) {
      adminToken = await signIn(); // fresh: tests move the clock past session lifetimes
      const password = 'a-long-enough-password';
      const created = await request('POST', '/accounts', { token: adminToken, body: { username, password, roles } });
      if (created.status !== 201) throw new Error(`account creation failed: ${created.text}`);
      return { id: created.body.id, token: await signIn(username, password), username };
    },
    async key(token, body) {
      const r = await request('POST', '/api-keys', { token, body });
      if (r.status !== 201) throw new Error(`key creation failed: ${r.status} ${r.text}`);
      return { id: r.body.id, key: r.body.key };
    },
    async eventCount() {
      const row = await database.db.knex('events').count({ n: '*' }).first();
      return Number(row?.n ?? 0);
    },
    async stop(o = {}) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections?.();
      await services.projections.stop();
      if (!o.keepDatabase) await database.drop();
    },
  };
}
