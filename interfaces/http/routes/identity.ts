import { Type } from '@sinclair/typebox';
import { Response } from 'express';
import { Principal } from '../../../application/identity/principal';
import { ROLES, SCOPES } from '../../../domain/identity/roles';
import { failureBucket } from '../client-address';
import { HttpProblem, problem } from '../problem';
import { RouteDef, VigilRequest } from '../route';
import { RowId } from '../row-id';
import { Services } from '../services';
import { width } from '../../../domain/shared/column-widths';
import { Text } from '../text';
import { answerPage, IdPageQuery, idPageOf } from '../id-paging';

const Id = Type.Object({ id: RowId() });
const Role = Type.Union(ROLES.map((r) => Type.Literal(r)));
const Scope = Type.Union(SCOPES.map((s) => Type.Literal(s)));
const Account = Type.Object({
  id: Type.Integer(), username: Type.String(), displayName: Type.String(), roles: Type.Array(Role), active: Type.Boolean(), createdAt: Type.String(), updatedAt: Type.String(),
});
const ApiKey = Type.Object({
  id: Type.Integer(), name: Type.String(), accountId: Type.Integer(), scopes: Type.Array(Scope), prefix: Type.String(),
  restriction: Type.Union([Type.Null(), Type.Object({ kind: Type.String(), id: Type.Integer() })]),
  expiresAt: Type.Union([Type.String(), Type.Null()]), createdAt: Type.String(), revokedAt: Type.Union([Type.String(), Type.Null()]),
  revokedReason: Type.Union([Type.String(), Type.Null()]), state: Type.String(),
});
const Password = Text({ minLength: 1, max: 1024 });
/** Role and scope names: the decider refuses unknown ones by name, so the schema only bounds them. */
const Word = Text({ max: 64 });
const DisplayName = Text({ max: width('accounts.display_name') });
const tag = 'Identity';
const admin = { roles: ['administrator'] as const, sessionOnly: true, rolesDetail: 'Only an administrator manages accounts.' };

const principalOf = (req: VigilRequest): Principal => req.principal!;

export function identityRoutes(s: Services): RouteDef[] {
  return [
    {
      method: 'post', path: '/auth/sign-in', tag, summary: 'Sign in with a password; answers a session bearer token', auth: 'public', bodyLimit: 'signIn', screensOwnText: true,
      // Length bounded by the schema; control characters reach the service, which refuses them with a 400 and audits the attempt.
      body: Type.Object({ username: Type.String({ maxLength: width('accounts.username') }), password: Type.String({ maxLength: 1024 }) }, { additionalProperties: false }),
      responses: {
        200: { description: 'Signed in', schema: Type.Object({ token: Type.String(), expiresAt: Type.String(), account: Account }) },
        400: { description: 'A control character in the username or password' }, 401: { description: 'Refused' },
        429: { description: 'Too many failed sign-ins for this name or from this address; Retry-After says how long to wait' },
      },
      handler: async (req) => {
        const outcome = await s.identity.signIn(req.ctx!, req.body.username, req.body.password, failureBucket(req.clientAddress ?? ''), { username: 'body.username', password: 'body.password' });
        if ('signedIn' in outcome) return outcome.signedIn;
        if ('secondFactorRequired' in outcome) {
          // Issue #14: the password was right; the session waits for the second factor (POST /auth/second-factor).
          throw new HttpProblem(401, 'Unauthorized', 'This account has a second factor: send the challenge with a code (or a backup code) to POST /api/v1/auth/second-factor.', 'second-factor-required', outcome.secondFactorRequired);
        }
        if (outcome.refused === 'throttled') throw problem.tooMany('Too many failed sign-ins; try again later.', outcome.retryAfterSeconds);
        throw problem.unauthorized();
      },
    },
    {
      method: 'post', path: '/auth/sign-out', tag, summary: 'End this session', auth: { sessionOnly: true }, bodyLimit: 'signIn',
      responses: { 204: { description: 'Signed out' } },
      handler: async (req) => { await s.identity.signOut(req.ctx!, req.bearer!, principalOf(req)); },
    },
    {
      method: 'get', path: '/me', tag, summary: "The caller's account, roles and, for a key, its scopes", auth: { scope: 'read' },
      responses: { 200: { description: 'The caller' } },
      handler: async (req) => {
        const p = principalOf(req);
        return { ...(await s.accountQueries.get(p.accountId)), credential: p.kind, ...(p.kind === 'key' ? { keyId: p.keyId, scopes: p.scopes, restriction: p.restriction } : {}) };
      },
    },
    {
      method: 'put', path: '/me/password', tag, summary: "Change one's own password; ends one's other sessions (an administrator's change also revokes the keys that account issued)", auth: { sessionOnly: true },
      body: Type.Object({ currentPassword: Password, newPassword: Password }, { additionalProperties: false }),
      responses: { 204: { description: 'Changed' } },
      handler: async (req) => { await s.identity.changeOwnPassword(req.ctx!, principalOf(req), req.body.currentPassword, req.body.newPassword, req.bearer!); },
    },
    {
      method: 'get', path: '/accounts', tag, summary: 'Accounts (administrator), by id; limit and after page through them (Link)', auth: admin, query: IdPageQuery,
      responses: { 200: { description: 'Accounts', schema: Type.Array(Account) } },
      handler: async (req, res: Response) => {
        const page = idPageOf(req.query as Record<string, unknown>);
        return answerPage(res, '/accounts', page, await s.accountQueries.page(page.limit, page.after));
      },
    },
    {
      method: 'post', path: '/accounts', tag, summary: 'Create an account (administrator)', auth: admin,
      body: Type.Object({ username: Text({ minLength: 1, max: width('accounts.username') }), displayName: Type.Optional(DisplayName), password: Password, roles: Type.Array(Word, { minItems: 1 }) }, { additionalProperties: false }),
      responses: { 201: { description: 'Created', schema: Account }, 409: { description: 'Username taken' } },
      handler: async (req) => s.accountQueries.get(await s.identity.createAccount(req.ctx!, req.body)),
    },
    {
      method: 'patch', path: '/accounts/{id}', tag, summary: 'Change an account (administrator); deactivating it ends its sessions', auth: admin, params: Id,
      body: Type.Object({ displayName: Type.Optional(DisplayName), roles: Type.Optional(Type.Array(Word, { minItems: 1 })), active: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
      responses: { 200: { description: 'Changed', schema: Account } },
      handler: async (req) => {
        await s.identity.updateAccount(req.ctx!, Number(req.params.id), req.body);
        return s.accountQueries.get(Number(req.params.id));
      },
    },
    {
      method: 'post', path: '/accounts/{id}/password-reset', tag, summary: "Reset an account's password (administrator); revokes that account's keys", auth: admin, params: Id,
      body: Type.Object({ newPassword: Password }, { additionalProperties: false }),
      responses: { 204: { description: 'Reset' } },
      handler: async (req) => { await s.identity.resetPassword(req.ctx!, Number(req.params.id), req.body.newPassword); },
    },
    {
      method: 'get', path: '/api-keys', tag, summary: 'Integration keys (yours; every key for an administrator), by id; limit and after page through them (Link)', auth: { sessionOnly: true }, query: IdPageQuery,
      responses: { 200: { description: 'Keys', schema: Type.Array(ApiKey) } },
      handler: async (req, res: Response) => {
        const page = idPageOf(req.query as Record<string, unknown>);
        return answerPage(res, '/api-keys', page, await s.keyQueries.page(principalOf(req), req.ctx!.now, page.limit, page.after));
      },
    },
    {
      method: 'post', path: '/api-keys', tag, summary: 'Issue an integration key; the secret `key` appears in this answer only', auth: { sessionOnly: true },
      body: Type.Object({
        name: Text({ minLength: 1, max: width('api_keys.name') }), scopes: Type.Array(Word, { minItems: 1 }),
        expiresAt: Type.Optional(Type.Union([Text({ max: width('api_keys.expires_at'), format: 'date-time' }), Type.Null()])),
        repositoryId: Type.Optional(RowId()), containerId: Type.Optional(RowId()),
      }, { additionalProperties: false }),
      responses: { 201: { description: 'Issued', schema: Type.Intersect([ApiKey, Type.Object({ key: Type.String() })]) } },
      handler: async (req, res: Response) => {
        const { id, key } = await s.identity.issueKey(req.ctx!, principalOf(req), req.body);
        res.status(201);
        return { ...(await s.keyQueries.get(id, req.ctx!.now)), key };
      },
    },
    {
      method: 'delete', path: '/api-keys/{id}', tag, summary: 'Revoke a key', auth: { sessionOnly: true }, params: Id,
      responses: { 204: { description: 'Revoked' } },
      handler: async (req) => { await s.identity.revokeKey(req.ctx!, principalOf(req), Number(req.params.id)); },
    },
  ];
}
