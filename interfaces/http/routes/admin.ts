import { Type } from '@sinclair/typebox';
import { Response } from 'express';
import { RouteDef } from '../route';
import { RowId } from '../row-id';
import { Services } from '../services';
import { SETTING_TEXT_MAX } from '../../../domain/settings/settings';
import { width } from '../../../domain/shared/column-widths';
import { Text } from '../text';
import { answerPage, IdPageQuery, idPageOf } from '../id-paging';

const Id = Type.Object({ id: RowId() });
const Team = Type.Object({
  id: Type.Integer(), name: Type.String(), createdAt: Type.String(), members: Type.Array(Type.Integer()),
  grants: Type.Array(Type.Object({ kind: Type.String(), id: Type.Integer() })),
});
const GrantKind = Type.Union([Type.Literal('project'), Type.Literal('repository'), Type.Literal('container')]);
const admin = { roles: ['administrator'] as const, sessionOnly: true, rolesDetail: 'Only an administrator manages teams.' };

/** Teams, grants, installation settings and health. */
export function adminRoutes(s: Services): RouteDef[] {
  return [
    {
      method: 'get', path: '/health', tag: 'Operations', summary: 'Liveness, stores, projection lag and the events each projection recorded as failures; no credential needed', auth: 'public',
      responses: { 200: { description: 'Healthy' }, 503: { description: 'Unhealthy' } },
      handler: async (_req, res: Response) => {
        let database = 'up';
        try { await s.db.knex.raw('SELECT 1'); } catch { database = 'down'; }
        let eventStore = 'up';
        try { await s.store.head(); } catch { eventStore = 'down'; }
        const projections = database === 'up' ? await s.projections.status() : [];
        const status = database === 'up' && eventStore === 'up' ? 'up' : 'down';
        res.status(status === 'up' ? 200 : 503);
        // The platform key's SHA-256 fingerprint once one exists (issue #11); health never generates it.
        const signingKey = database === 'up' && eventStore === 'up' ? { fingerprint: await s.platformKeys.fingerprint().catch(() => null) } : null;
        return { status, eventStore, database, projections, signingKey };
      },
    },
    {
      method: 'get', path: '/settings', tag: 'Operations', summary: 'Installation settings by name', auth: { scope: 'read' },
      responses: { 200: { description: 'Settings' } },
      handler: async () => s.settingsQueries.all(),
    },
    {
      method: 'patch', path: '/settings', tag: 'Operations', summary: 'Change installation settings (each by the role spec 1 §5 names; administrator otherwise)', auth: { sessionOnly: true },
      // Keys are setting names (settings.name); the domain refuses unknown ones and bounds a text value.
      body: Type.Object({}, { additionalProperties: Type.Union([Type.Boolean(), Type.Integer(), Text({ max: SETTING_TEXT_MAX }), Type.Null()]), propertyNames: Text({ max: width('settings.name') }) }),
      responses: { 200: { description: 'All settings after the change' } },
      handler: async (req) => {
        await s.settings.change(req.ctx!, req.principal!.roles, req.body);
        return s.settingsQueries.all();
      },
    },
    {
      method: 'get', path: '/teams', tag: 'Teams', summary: 'Teams with members and grants, by id; limit and after page through them (Link)', auth: admin, query: IdPageQuery,
      responses: { 200: { description: 'Teams', schema: Type.Array(Team) } },
      handler: async (req, res: Response) => {
        const page = idPageOf(req.query as Record<string, unknown>);
        return answerPage(res, '/teams', page, await s.teamQueries.page(page.limit, page.after));
      },
    },
    {
      method: 'post', path: '/teams', tag: 'Teams', summary: 'Create a team', auth: admin,
      body: Type.Object({ name: Text({ minLength: 1, max: width('teams.name') }) }, { additionalProperties: false }),
      responses: { 201: { description: 'Created', schema: Team } },
      handler: async (req, res: Response) => {
        const id = await s.teams.create(req.ctx!, req.body.name);
        res.status(201);
        return s.teamQueries.get(id);
      },
    },
    {
      method: 'get', path: '/teams/{id}/members', tag: 'Teams', summary: "A team's members", auth: admin, params: Id,
      responses: { 200: { description: 'Account ids' } },
      handler: async (req) => (await s.teamQueries.get(Number(req.params.id))).members,
    },
    {
      method: 'post', path: '/teams/{id}/members', tag: 'Teams', summary: 'Add a member', auth: admin, params: Id,
      body: Type.Object({ accountId: RowId() }, { additionalProperties: false }),
      responses: { 201: { description: 'The team', schema: Team } },
      handler: async (req, res: Response) => {
        await s.teams.addMember(req.ctx!, Number(req.params.id), req.body.accountId);
        res.status(201);
        return s.teamQueries.get(Number(req.params.id));
      },
    },
    {
      method: 'delete', path: '/teams/{id}/members/{accountId}', tag: 'Teams', summary: 'Remove a member', auth: admin,
      params: Type.Object({ id: RowId(), accountId: RowId() }),
      responses: { 204: { description: 'Removed' } },
      handler: async (req) => { await s.teams.removeMember(req.ctx!, Number(req.params.id), Number(req.params.accountId)); },
    },
    {
      method: 'get', path: '/teams/{id}/grants', tag: 'Teams', summary: "A team's grants", auth: admin, params: Id,
      responses: { 200: { description: 'Grants' } },
      handler: async (req) => (await s.teamQueries.get(Number(req.params.id))).grants,
    },
    {
      method: 'post', path: '/teams/{id}/grants', tag: 'Teams', summary: 'Grant a project or one target to the team', auth: admin, params: Id,
      body: Type.Object({ kind: GrantKind, id: RowId() }, { additionalProperties: false }),
      responses: { 201: { description: 'The team', schema: Team } },
      handler: async (req, res: Response) => {
        await s.teams.addGrant(req.ctx!, Number(req.params.id), req.body.kind, req.body.id);
        res.status(201);
        return s.teamQueries.get(Number(req.params.id));
      },
    },
    {
      method: 'delete', path: '/teams/{id}/grants/{kind}/{targetId}', tag: 'Teams', summary: 'Withdraw a grant', auth: admin,
      params: Type.Object({ id: RowId(), kind: GrantKind, targetId: RowId() }),
      responses: { 204: { description: 'Withdrawn' } },
      handler: async (req) => { await s.teams.removeGrant(req.ctx!, Number(req.params.id), req.params.kind as never, Number(req.params.targetId)); },
    },
  ];
}
