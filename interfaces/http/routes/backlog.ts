import { Type } from '@sinclair/typebox';
import { Response } from 'express';
import { issueEtag } from '../../../projections/backlog/issue-queries';
import { RouteDef, VigilRequest } from '../route';
import { MAX_ROW_ID, RowId } from '../row-id';
import { Services } from '../services';
import { Text } from '../text';
import { AsOfSchema, parseAsOf } from '../as-of';

const TriageStatus = Type.Union(['under_review', 'affected', 'not_affected', 'will_not_fix', 'fixed', 'pending_approval'].map((s) => Type.Literal(s)));

/** The backlog's queries: GET /issues with the filters of spec 1 §4.5, GET /issues/{id} with provenance and history. */
export function backlogRoutes(s: Services): RouteDef[] {
  return [
    {
      method: 'get', path: '/issues', tag: 'Issues', summary: 'The backlog you see, by id; filters of spec 1 §4.5; limit and after page through it', auth: { scope: 'read' },
      query: Type.Object({
        triage_status: Type.Optional(TriageStatus), repository_id: Type.Optional(RowId()), container_id: Type.Optional(RowId()),
        owasp_category: Type.Optional(Text({ max: 20 })), unsettled: Type.Optional(Type.Boolean()),
        status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('resolved')])),
        severity: Type.Optional(Type.Union(['critical', 'high', 'medium', 'low'].map((x) => Type.Literal(x)))),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })), after: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ROW_ID })),
      }),
      responses: { 200: { description: 'Issues' } },
      handler: async (req: VigilRequest, res: Response) => {
        const q = req.query as Record<string, unknown>;
        const limit = Number(q.limit ?? 100);
        const page = await s.backlogQueries.list(req.principal!, {
          triage_status: q.triage_status as string | undefined, repository_id: q.repository_id === undefined ? undefined : Number(q.repository_id),
          container_id: q.container_id === undefined ? undefined : Number(q.container_id), owasp_category: q.owasp_category as string | undefined,
          unsettled: q.unsettled === true || q.unsettled === 'true', status: q.status as 'open' | 'resolved' | undefined, severity: q.severity as string | undefined,
          limit, after: Number(q.after ?? 0),
        });
        if (page.next !== null) {
          const params = new URLSearchParams(Object.entries(q).filter(([k]) => k !== 'after').map(([k, v]) => [k, String(v)] as [string, string]));
          params.set('limit', String(limit));
          params.set('after', String(page.next));
          res.setHeader('Link', `</api/v1/issues?${params}>; rel="next"`);
        }
        return page.items;
      },
    },
    {
      method: 'get', path: '/issues/{id}', tag: 'Issues', summary: 'One issue with provenance and its history of decisions; ETag is its revision', auth: { scope: 'read' },
      params: Type.Object({ id: RowId() }),
      // as_of (issue #11): the issue folded from its stream up to that instant, for auditors.
      query: Type.Object({ as_of: AsOfSchema }),
      responses: { 200: { description: 'The issue' }, 404: { description: 'Unknown or not visible' } },
      handler: async (req, res) => {
        const asOf = parseAsOf(req.query.as_of);
        const issue = asOf ? await s.issueAsOf.get(req.principal!, Number(req.params.id), asOf) : await s.backlogQueries.get(req.principal!, Number(req.params.id));
        res.setHeader('ETag', issueEtag(issue.revision));
        return issue;
      },
    },
  ];
}
