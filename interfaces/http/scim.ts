import { timingSafeEqual } from 'node:crypto';
import express, { NextFunction, Request, Response } from 'express';
import { RequestContext } from '../../application/command-handler';
import { parseFilter, SCIM_ERROR_SCHEMA, SCIM_GROUP_SCHEMA, SCIM_LIST_SCHEMA, SCIM_USER_SCHEMA, ScimError, UserFilter } from '../../domain/identity/scim';
import { DomainError } from '../../domain/shared/decider';
import { sha256Hex } from '../../domain/shared/digest';
import type { ScimUserRow } from '../../projections/identity/scim-queries';
import { bearerOf } from './auth';
import { failureBucket } from './client-address';
import { WindowCounter } from './rate-limits';
import { pathOf } from './route-table';
import { VigilRequest } from './route';
import { Services } from './services';

export const SCIM_BASE = '/scim/v2';
const CONTENT_TYPE = 'application/scim+json';

type Handler = (ctx: RequestContext, req: Request, id: number | null) => Promise<{ status: number; body?: unknown; location?: string }>;

/** A route of SCIM's own table: method, exact path (an id segment of digits at most). */
interface ScimRoute { method: string; resource: 'Users' | 'Groups' | 'ServiceProviderConfig'; withId: boolean; handler: Handler }

function userResource(u: ScimUserRow, base: string) {
  return {
    schemas: [SCIM_USER_SCHEMA], id: String(u.id), userName: u.userName, ...(u.externalId !== null ? { externalId: u.externalId } : {}),
    displayName: u.displayName, name: { formatted: u.displayName }, active: u.active,
    meta: { resourceType: 'User', created: u.created, lastModified: u.lastModified, location: `${base}/Users/${u.id}` },
  };
}

function groupResource(t: { id: number; name: string; createdAt: string; members: number[] }, base: string) {
  return {
    schemas: [SCIM_GROUP_SCHEMA], id: String(t.id), displayName: t.name, members: t.members.map((m) => ({ value: String(m), $ref: `${base}/Users/${m}` })),
    meta: { resourceType: 'Group', created: t.createdAt, location: `${base}/Groups/${t.id}` },
  };
}

function list(resources: unknown[], total: number, startIndex: number) {
  return { schemas: [SCIM_LIST_SCHEMA], totalResults: total, startIndex, itemsPerPage: resources.length, Resources: resources };
}

function paging(query: Request['query']): { startIndex: number; count: number } {
  const int = (name: string, fallback: number, min: number, max: number) => {
    const raw = query[name];
    if (raw === undefined) return fallback;
    if (typeof raw !== 'string' || !/^\d{1,9}$/.test(raw)) throw new ScimError(400, `${name} must be a whole number.`, 'invalidValue');
    return Math.min(max, Math.max(min, Number(raw)));
  };
  return { startIndex: int('startIndex', 1, 1, 1_000_000_000), count: int('count', 100, 0, 200) };
}

function filterOf(resource: 'Users' | 'Groups', query: Request['query']): { attribute: string; value: string } | null {
  const raw = query.filter;
  if (raw === undefined) return null;
  if (typeof raw !== 'string' || raw.length > 1000) throw new ScimError(400, 'filter must be one expression of at most 1000 characters.', 'invalidFilter');
  return parseFilter(resource, raw);
}

function sendError(res: Response, error: ScimError, headers: Record<string, string> = {}): void {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.status(error.status).type(CONTENT_TYPE).send(JSON.stringify({
    schemas: [SCIM_ERROR_SCHEMA], status: String(error.status), ...(error.scimType ? { scimType: error.scimType } : {}), detail: error.message,
  }));
}

/**
 * SCIM 2.0 (RFC 7644) at /scim/v2, beside the API (CONVENTIONS: /scim/v2/Users): its own small
 * route table (exact paths, 404 and 405 otherwise), its own credential (the SCIM token, counted
 * with the other refused bearers per address), its own error documents (RFC 7644 §3.12) and
 * media type. It answers SCIM clients, which expect neither problem documents nor /api/v1.
 */
export function scimMiddleware(s: Services, bearerFailures: WindowCounter) {
  const scim = s.scim;
  const teams = s.teamQueries;
  const base = () => `${(s.config.publicUrl ?? '').replace(/\/+$/, '')}${SCIM_BASE}`;
  const routes: ScimRoute[] = [
    { method: 'GET', resource: 'ServiceProviderConfig', withId: false, handler: async () => ({ status: 200, body: {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'], patch: { supported: true }, bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
      filter: { supported: true, maxResults: 200 }, changePassword: { supported: false }, sort: { supported: false }, etag: { supported: false },
      authenticationSchemes: [{ type: 'oauthbearertoken', name: 'SCIM token', description: 'POST /api/v1/admin/scim-token', primary: true }],
    } }) },
    { method: 'GET', resource: 'Users', withId: false, handler: async (_ctx, req) => {
      const filter = filterOf('Users', req.query) as UserFilter | null;
      const { startIndex, count } = paging(req.query);
      const page = await s.scimQueries.users(filter, startIndex, count);
      return { status: 200, body: list(page.rows.map((u) => userResource(u, base())), page.total, startIndex) };
    } },
    { method: 'POST', resource: 'Users', withId: false, handler: async (ctx, req) => {
      const id = await scim.createUser(ctx, bodyOf(req));
      return { status: 201, body: userResource((await s.scimQueries.user(id))!, base()), location: `${base()}/Users/${id}` };
    } },
    { method: 'GET', resource: 'Users', withId: true, handler: async (_ctx, _req, id) => ({ status: 200, body: userResource(await user(id!), base()) }) },
    { method: 'PUT', resource: 'Users', withId: true, handler: async (ctx, req, id) => {
      await scim.replaceUser(ctx, id!, bodyOf(req));
      return { status: 200, body: userResource(await user(id!), base()) };
    } },
    { method: 'PATCH', resource: 'Users', withId: true, handler: async (ctx, req, id) => {
      await scim.patchUser(ctx, id!, bodyOf(req));
      return { status: 200, body: userResource(await user(id!), base()) };
    } },
    { method: 'DELETE', resource: 'Users', withId: true, handler: async (ctx, _req, id) => {
      await scim.deactivateUser(ctx, id!);
      return { status: 204 };
    } },
    { method: 'GET', resource: 'Groups', withId: false, handler: async (_ctx, req) => {
      const filter = filterOf('Groups', req.query);
      const { startIndex, count } = paging(req.query);
      const all = (await teams.list()).filter((t) => !filter || t.name === filter.value);
      return { status: 200, body: list(all.slice(startIndex - 1, startIndex - 1 + count).map((t) => groupResource(t, base())), all.length, startIndex) };
    } },
    { method: 'POST', resource: 'Groups', withId: false, handler: async (ctx, req) => {
      const id = await scim.createGroup(ctx, bodyOf(req));
      return { status: 201, body: groupResource(await teams.get(id), base()), location: `${base()}/Groups/${id}` };
    } },
    { method: 'GET', resource: 'Groups', withId: true, handler: async (_ctx, _req, id) => ({ status: 200, body: groupResource(await team(id!), base()) }) },
    { method: 'PATCH', resource: 'Groups', withId: true, handler: async (ctx, req, id) => {
      await scim.patchGroup(ctx, id!, bodyOf(req), (await team(id!)).members);
      return { status: 200, body: groupResource(await team(id!), base()) };
    } },
  ];
  const user = async (id: number) => {
    const found = await s.scimQueries.user(id);
    if (!found) throw new ScimError(404, `No user ${id}.`);
    return found;
  };
  const team = async (id: number) => {
    try {
      return await teams.get(id);
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'not_found') throw new ScimError(404, `No group ${id}.`);
      throw error;
    }
  };
  const json = express.json({ limit: s.config.bodyLimits.default, strict: true, type: () => true });

  return async (req: VigilRequest, res: Response, next: NextFunction) => {
    const path = pathOf(req.url);
    if (path !== SCIM_BASE && !path.startsWith(`${SCIM_BASE}/`)) return next();
    try {
      if (!scim) throw new ScimError(404, 'SCIM is not served here.');
      const match = /^\/scim\/v2\/(Users|Groups|ServiceProviderConfig)(?:\/(\d{1,10}))?$/.exec(path);
      const candidates = match ? routes.filter((r) => r.resource === match[1] && r.withId === (match[2] !== undefined)) : [];
      if (candidates.length === 0) throw new ScimError(404, `No SCIM resource at ${path.slice(0, 200)}.`);
      const route = candidates.find((r) => r.method === req.method);
      if (!route) throw new ScimError(405, `${req.method} is not supported on ${path}.`);
      const ctx = await authenticate(req);
      if (['POST', 'PUT', 'PATCH'].includes(req.method)) await new Promise<void>((resolve, reject) => json(req, res, (e?: unknown) => (e ? reject(e) : resolve())));
      const out = await route.handler(ctx, req, match![2] !== undefined ? Number(match![2]) : null);
      if (out.location) res.setHeader('Location', out.location);
      if (out.body === undefined) res.status(out.status).end();
      else res.status(out.status).type(CONTENT_TYPE).send(JSON.stringify(out.body));
    } catch (error) {
      if (error instanceof ScimError) {
        const retryAfter = (error as ScimError & { retryAfter?: number }).retryAfter;
        return sendError(res, error, error.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : retryAfter ? { 'Retry-After': String(retryAfter) } : {});
      }
      const e = error as { type?: string; status?: number };
      if (e?.type === 'entity.too.large') return sendError(res, new ScimError(413, `The request body is over ${s.config.bodyLimits.default} bytes (VIGIL_MAX_BODY_DEFAULT).`));
      if (e?.type === 'entity.parse.failed') return sendError(res, new ScimError(400, 'The request body is not valid JSON.', 'invalidSyntax'));
      s.log.error('SCIM request failed', { error: (error as Error)?.stack });
      return sendError(res, new ScimError(500, 'The request failed.'));
    }
  };

  /** The SCIM token, and nothing else; refused tokens count with every refused bearer of the address. */
  async function authenticate(req: VigilRequest): Promise<RequestContext> {
    const now = s.clock.now();
    const bucket = failureBucket(req.clientAddress ?? '');
    const secret = bearerOf(req);
    const blocked = bearerFailures.blockedFor(bucket, now.getTime());
    if (blocked) throw Object.assign(new ScimError(429, 'Too many refused credentials from this address; try again later.'), { retryAfter: blocked });
    const current = await s.scimQueries.token();
    const ok = secret !== null && current !== null && timingSafeEqual(Buffer.from(sha256Hex(secret)), Buffer.from(current.hash));
    if (!ok) {
      if (secret) {
        const wait = bearerFailures.hit(bucket, now.getTime());
        if (wait === 0 && bearerFailures.blockedFor(bucket, now.getTime())) await s.identity.recordBearerFailureCeiling({ actor: null, address: req.clientAddress, now }, bucket);
      }
      throw new ScimError(401, 'A valid SCIM token is required.');
    }
    return { actor: current.issuedBy, address: req.clientAddress ?? null, userAgent: req.headers['user-agent'] ?? null, correlationId: (req.headers['x-correlation-id'] as string) ?? null, now };
  }
}

function bodyOf(req: Request): Record<string, unknown> {
  const body = req.body as unknown;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ScimError(400, 'The request body must be a JSON object.', 'invalidSyntax');
  return body as Record<string, unknown>;
}
