import { TSchema, Type } from '@sinclair/typebox';
import { TargetKind } from '../../../domain/shared/target-kind';
import { RouteDef } from '../route';
import { RowId } from '../row-id';
import { Services } from '../services';

const Id = Type.Object({ id: RowId() });
const Nullable = (s: TSchema) => Type.Union([s, Type.Null()]);
const Status = Type.Union(['pending', 'scanning', 'completed', 'failed'].map((s) => Type.Literal(s)));
const Step = Nullable(Type.Object({ tool: Type.String(), toolVersion: Nullable(Type.String()), findings: Type.Integer() }));
const Scan = Type.Object({
  id: Type.Integer(), targetKind: Type.String(), targetId: Type.Integer(), repositoryId: Nullable(Type.Integer()), containerId: Nullable(Type.Integer()),
  status: Status, error: Nullable(Type.String()), errorKind: Nullable(Type.String()), attempts: Type.Integer({ minimum: 0, maximum: 3 }),
  trigger: Type.String(), requestedAt: Type.String(), notBefore: Nullable(Type.String()), startedAt: Nullable(Type.String()), finishedAt: Nullable(Type.String()),
  worker: Nullable(Type.String()), leaseExpiresAt: Nullable(Type.String()), lastError: Nullable(Type.String()), requiresCredential: Type.Boolean(),
  detectedLanguages: Nullable(Type.Array(Type.String())), duration: Nullable(Type.String()), steps: Nullable(Type.Record(Type.String(), Step)),
  createdCount: Nullable(Type.Integer()), resolvedCount: Nullable(Type.Integer()), reopenedCount: Nullable(Type.Integer()),
});
const ListQuery = Type.Object({
  repo_id: Type.Optional(RowId()), container_id: Type.Optional(RowId()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })), before: Type.Optional(RowId()),
});
/** "Triggering a scan is an administrator's act" (spec 1 §5): sessions of administrators, keys with scope scan of administrators. */
const triggerRule = { scope: 'scan', roles: ['administrator'], rolesDetail: "Triggering a scan is an administrator's act." } as const;

/** Scans (spec 1 §2.2, §3.1, §4.1; CONVENTIONS: GET /scans/{id} answers {scan: {...}}). */
export function scanRoutes(s: Services): RouteDef[] {
  const trigger = (kind: TargetKind, plural: string, noun: string): RouteDef => ({
    method: 'post', path: `/${plural}/{id}/scan`, tag: 'Scans', summary: `Request a scan of a ${noun} (administrators); 409 while one waits`, auth: triggerRule, params: Id,
    body: Type.Object({}, { additionalProperties: false }),
    responses: { 200: { description: 'The scan, pending', schema: Scan }, 404: { description: 'Unknown or not visible' }, 409: { description: 'A scan of the target is already waiting' } },
    handler: async (req) => {
      const { scanId } = await s.scans.request(req.ctx!, req.principal!, kind, Number(req.params.id));
      return s.scanQueries.requested(scanId);
    },
  });
  return [
    trigger('repository', 'repositories', 'repository'),
    trigger('container', 'containers', 'container image'),
    {
      method: 'get', path: '/scans', tag: 'Scans', summary: 'Scans of the targets you see, newest first; repo_id or container_id narrows, limit bounds (Link rel="next")',
      auth: { scope: 'read' }, query: ListQuery, responses: { 200: { description: 'Scans, newest first', schema: Type.Array(Scan) } },
      handler: async (req, res) => {
        const q = req.query as Record<string, string | undefined>;
        const limit = Number(q.limit ?? 50);
        const page = await s.scanQueries.list(req.principal!, {
          repositoryId: q.repo_id === undefined ? undefined : Number(q.repo_id), containerId: q.container_id === undefined ? undefined : Number(q.container_id),
          limit, before: q.before === undefined ? undefined : Number(q.before),
        });
        if (page.next !== null) {
          const params = new URLSearchParams();
          if (q.repo_id !== undefined) params.set('repo_id', String(q.repo_id));
          if (q.container_id !== undefined) params.set('container_id', String(q.container_id));
          params.set('limit', String(limit));
          params.set('before', String(page.next));
          res.setHeader('Link', `</api/v1/scans?${params.toString()}>; rel="next"`);
        }
        return page.items;
      },
    },
    {
      method: 'get', path: '/scans/{id}', tag: 'Scans', summary: 'One scan: {scan: {id, status, error, attempts, ...}}', auth: { scope: 'read' }, params: Id,
      responses: { 200: { description: 'The scan', schema: Type.Object({ scan: Scan }) }, 404: { description: 'Unknown or not visible' } },
      handler: async (req) => s.scanQueries.get(req.principal!, Number(req.params.id)),
    },
  ];
}
