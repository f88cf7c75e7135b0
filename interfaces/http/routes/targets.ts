import { TSchema, Type } from '@sinclair/typebox';
import { Response } from 'express';
import { TargetKind } from '../../../domain/shared/target-kind';
import { answerPage, IdPageQuery, idPageOf } from '../id-paging';
import { RouteDef, VigilRequest } from '../route';
import { MAX_ROW_ID, RowId } from '../row-id';
import { Services } from '../services';
import { TARGET_NAME_MAX } from '../../../domain/targets/target';
import { width } from '../../../domain/shared/column-widths';
import { Text } from '../text';
import { MAX_LABEL_LENGTH, MAX_LABELS } from '../../../domain/shared/labels';

const Id = Type.Object({ id: RowId() });
const Nullable = (s: TSchema) => Type.Union([s, Type.Null()]);
const ScheduleFields = {
  scanManualOnly: Type.Optional(Type.Boolean()),
  scanIntervalMinutes: Type.Optional(Nullable(Type.Integer())),
  scanCron: Type.Optional(Nullable(Text({ max: width('repositories.scan_cron') }))),
};
/** Where the target's scans may run (spec 1 §2.1 "required agent"): an agent id (GET /admin/agents) or null; labels the claimer must carry. */
const PlacementFields = {
  requiredAgentId: Type.Optional(Nullable(RowId())),
  requiredLabels: Type.Optional(Nullable(Type.Array(Text({ minLength: 1, max: MAX_LABEL_LENGTH }), { maxItems: MAX_LABELS }))),
};
const Schedule = Type.Object({ mode: Type.String(), intervalMinutes: Nullable(Type.Integer()) });
const TargetCommon = {
  id: Type.Integer(), name: Type.String(), projectId: Nullable(Type.Integer()), scanManualOnly: Type.Boolean(), scanIntervalMinutes: Nullable(Type.Integer()),
  scanCron: Nullable(Type.String()), schedule: Schedule, lastScheduledScanAt: Nullable(Type.String()), createdAt: Type.String(), updatedAt: Type.String(),
  requiredAgentId: Nullable(Type.Integer()), requiredLabels: Type.Array(Type.String()),
};
const Repository = Type.Object({
  ...TargetCommon, url: Type.String(), identity: Type.String(), branch: Type.String(), subPath: Type.String(), detectedLanguages: Nullable(Type.Array(Type.String())),
  sshKeyId: Nullable(Type.Integer()), httpsTokenId: Nullable(Type.Integer()),
});
/** The stored clone credential a repository names (GET /credentials): at most one; null clears; administrators only. */
const CredentialFields = { sshKeyId: Type.Optional(Nullable(RowId())), httpsTokenId: Type.Optional(Nullable(RowId())) };
const Container = Type.Object({ ...TargetCommon, image: Type.String() });
const ListQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })), after: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ROW_ID })) });
const writeRule = { sessionOnly: true } as const;
// The decider bounds what derives from these: a repository's identity (repositories.identity) and a name taken from the url or image.
const Url = Text({ minLength: 1, max: width('repositories.url') });
const Branch = Text({ max: width('repositories.branch') });
const SubPath = Text({ max: width('repositories.sub_path') });
const Image = Text({ minLength: 1, max: width('containers.image') });
const Name = Text({ max: TARGET_NAME_MAX });

function listHandler(s: Services, kind: TargetKind) {
  return async (req: VigilRequest, res: Response) => {
    const limit = Number(req.query.limit ?? 100);
    const page = await s.targetQueries.list(req.principal!, kind, limit, Number(req.query.after ?? 0));
    if (page.next !== null) res.setHeader('Link', `</api/v1/${kind === 'repository' ? 'repositories' : 'containers'}?limit=${limit}&after=${page.next}>; rel="next"`);
    return page.items;
  };
}

/** Repositories, container images, solutions and projects (spec 1 §2.1, §4.2; CONVENTIONS.md). */
export function targetRoutes(s: Services): RouteDef[] {
  const perKind = (kind: TargetKind, plural: string, schema: TSchema, createBody: TSchema, patchBody: TSchema, noun: string): RouteDef[] => [
    {
      method: 'get', path: `/${plural}`, tag: 'Targets', summary: `${noun}s you see, by id; limit and after page through them (Link rel="next")`, auth: { scope: 'read' }, query: ListQuery,
      responses: { 200: { description: 'A page', schema: Type.Array(schema) } }, handler: listHandler(s, kind),
    },
    {
      method: 'post', path: `/${plural}`, tag: 'Targets', summary: `Register a ${noun.toLowerCase()}`, auth: writeRule, body: createBody,
      responses: { 201: { description: 'Registered', schema }, 409: { description: 'target-already-registered' } },
      handler: async (req, res) => { const v = await s.targets.register(req.ctx!, req.principal!, kind, req.body); res.status(201); return v; },
    },
    {
      method: 'get', path: `/${plural}/{id}`, tag: 'Targets', summary: `One ${noun.toLowerCase()}`, auth: { scope: 'read' }, params: Id,
      responses: { 200: { description: 'The target', schema }, 404: { description: 'Unknown or not visible' } },
      handler: async (req) => s.targetQueries.get(req.principal!, kind, Number(req.params.id)),
    },
    {
      method: 'patch', path: `/${plural}/{id}`, tag: 'Targets', summary: `Change a ${noun.toLowerCase()} (partial)`, auth: writeRule, params: Id, body: patchBody,
      responses: { 200: { description: 'Changed', schema }, 409: { description: 'target-already-registered' } },
      handler: async (req) => s.targets.update(req.ctx!, req.principal!, kind, Number(req.params.id), req.body),
    },
    {
      method: 'delete', path: `/${plural}/{id}`, tag: 'Targets', summary: `Delete a ${noun.toLowerCase()}; keys restricted to it are revoked`, auth: writeRule, params: Id,
      responses: { 204: { description: 'Deleted' } },
      handler: async (req) => { await s.targets.delete(req.ctx!, req.principal!, kind, Number(req.params.id)); },
    },
  ];
  return [
    {
      method: 'get', path: '/repositories/duplicates', tag: 'Targets', summary: 'Groups of repositories sharing an identity, oldest first (administrators)',
      auth: { scope: 'read', roles: ['administrator'], rolesDetail: 'Only an administrator lists duplicates.' },
      responses: { 200: { description: 'Groups' } }, handler: async () => s.targetQueries.duplicates(),
    },
    ...perKind('repository', 'repositories', Repository,
      Type.Object({ url: Url, branch: Type.Optional(Branch), subPath: Type.Optional(SubPath), name: Type.Optional(Name), projectId: Type.Optional(Nullable(RowId())), ...ScheduleFields, ...PlacementFields, ...CredentialFields }, { additionalProperties: false }),
      Type.Object({ url: Type.Optional(Url), branch: Type.Optional(Branch), subPath: Type.Optional(SubPath), name: Type.Optional(Nullable(Name)), projectId: Type.Optional(Nullable(RowId())), ...ScheduleFields, ...PlacementFields, ...CredentialFields }, { additionalProperties: false }),
      'Repository'),
    ...perKind('container', 'containers', Container,
      Type.Object({ image: Image, name: Type.Optional(Name), projectId: Type.Optional(Nullable(RowId())), ...ScheduleFields, ...PlacementFields }, { additionalProperties: false }),
      Type.Object({ image: Type.Optional(Image), name: Type.Optional(Nullable(Name)), projectId: Type.Optional(Nullable(RowId())), ...ScheduleFields, ...PlacementFields }, { additionalProperties: false }),
      'Container image'),
    {
      method: 'get', path: '/solutions', tag: 'Portfolio', summary: 'Solutions, each project with detectedLanguages and languagesUnknownFor, by id; limit and after page through them (Link)', auth: { scope: 'read' }, query: IdPageQuery,
      responses: { 200: { description: 'Solutions' } },
      handler: async (req, res) => {
        const page = idPageOf(req.query as Record<string, unknown>);
        return answerPage(res, '/solutions', page, await s.portfolioQueries.pageSolutions(req.principal!, page.limit, page.after));
      },
    },
    {
      method: 'post', path: '/solutions', tag: 'Portfolio', summary: 'Create a solution (administrator, CISO)', auth: { sessionOnly: true, roles: ['administrator', 'ciso'] },
      body: Type.Object({ name: Text({ minLength: 1, max: width('solutions.name') }) }, { additionalProperties: false }),
      responses: { 201: { description: 'Created' } },
      handler: async (req, res) => { res.status(201); return s.targets.createSolution(req.ctx!, req.body.name); },
    },
    {
      method: 'get', path: '/projects', tag: 'Portfolio', summary: 'Projects you see, by id; limit and after page through them (Link)', auth: { scope: 'read' }, query: IdPageQuery,
      responses: { 200: { description: 'Projects' } },
      handler: async (req, res) => {
        const page = idPageOf(req.query as Record<string, unknown>);
        return answerPage(res, '/projects', page, await s.portfolioQueries.pageProjects(req.principal!, page.limit, page.after));
      },
    },
    {
      method: 'post', path: '/projects', tag: 'Portfolio', summary: 'Create a project (administrator, CISO)', auth: { sessionOnly: true, roles: ['administrator', 'ciso'] },
      body: Type.Object({ name: Text({ minLength: 1, max: width('projects.name') }), solutionId: Type.Optional(Nullable(RowId())) }, { additionalProperties: false }),
      responses: { 201: { description: 'Created' } },
      handler: async (req, res) => { res.status(201); return s.targets.createProject(req.ctx!, req.body.name, req.body.solutionId ?? null); },
    },
  ];
}
