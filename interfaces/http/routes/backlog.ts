import { Type } from '@sinclair/typebox';
import { Response } from 'express';
import { ISSUE_TYPES } from '../../../domain/backlog/issue';
import { refuse } from '../../../domain/shared/decider';
import { ISSUE_SORTS, IssueSort, issueEtag, parseAfterKey, parseOwaspCategory } from '../../../projections/backlog/issue-queries';
import { OWASP_CATEGORY_MAX } from '../../../domain/backlog/owasp';
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
      method: 'get', path: '/issues', tag: 'Issues', auth: { scope: 'read' },
      summary: 'The backlog you see; filters of spec 1 §4.5 (owasp_category takes A03:2021 or A3:2021) and kev, epss_min, type, status, severity; sort keeps its order across pages; limit, after (and after_key) from the Link page through it',
      query: Type.Object({
        triage_status: Type.Optional(TriageStatus), repository_id: Type.Optional(RowId()), container_id: Type.Optional(RowId()),
        owasp_category: Type.Optional(Text({ max: OWASP_CATEGORY_MAX, description: 'An OWASP Top 10 category code, A03:2021 or A3:2021, any case: the issues whose rule names it (SAST rule tags, Semgrep metadata)' })), unsettled: Type.Optional(Type.Boolean()),
        status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('resolved')])),
        severity: Type.Optional(Type.Union(['critical', 'high', 'medium', 'low'].map((x) => Type.Literal(x)))),
        kev: Type.Optional(Type.Boolean({ description: 'Listed in the KEV catalogue (true) or known not to be (false); issues whose KEV state is unknown (no feed synchronised) match neither' })),
        epss_min: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'EPSS score at least this; issues without a score do not match' })),
        type: Type.Optional(Type.Union(ISSUE_TYPES.map((x) => Type.Literal(x)))),
        sort: Type.Optional(Type.Union(ISSUE_SORTS.map((x) => Type.Literal(x)), { description: 'id (default): as created; severity: most severe first; epss: highest first, unscored last; first_seen: oldest first; deadline: earliest remediation deadline first, issues without one last. Ties in id order.' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })), after: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ROW_ID })),
        after_key: Type.Optional(Text({ max: 40, description: 'With a sort other than id: the sort key of the issue named by after, as the Link of the previous page carries it' })),
      }),
      responses: { 200: { description: 'Issues' } },
      handler: async (req: VigilRequest, res: Response) => {
        const q = req.query as Record<string, unknown>;
        const limit = Number(q.limit ?? 100);
        const sort = (q.sort as IssueSort | undefined) ?? 'id';
        let afterKey: string | number | undefined;
        if (sort === 'id') {
          if (q.after_key !== undefined) throw refuse.invalid('after_key goes with a sort other than id (the id alone, in after, pages through the default order).');
        } else if (q.after_key !== undefined || q.after !== undefined) {
          if (q.after_key === undefined || q.after === undefined) throw refuse.invalid(`With sort=${sort}, after and after_key go together: copy both from the Link of the previous page.`);
          afterKey = parseAfterKey(sort, String(q.after_key));
        }
        const owaspCategory = q.owasp_category === undefined ? undefined : parseOwaspCategory(String(q.owasp_category));
        const bool = (x: unknown) => (x === undefined ? undefined : x === true || x === 'true');
        const page = await s.backlogQueries.list(req.principal!, {
          triage_status: q.triage_status as string | undefined, repository_id: q.repository_id === undefined ? undefined : Number(q.repository_id),
          container_id: q.container_id === undefined ? undefined : Number(q.container_id), owasp_category: owaspCategory,
          unsettled: q.unsettled === true || q.unsettled === 'true', status: q.status as 'open' | 'resolved' | undefined, severity: q.severity as string | undefined,
          kev: bool(q.kev), epss_min: q.epss_min === undefined ? undefined : Number(q.epss_min), type: q.type as string | undefined, sort,
          limit, after: Number(q.after ?? 0), afterKey,
        });
        if (page.next !== null) {
          const params = new URLSearchParams(Object.entries(q).filter(([k]) => k !== 'after' && k !== 'after_key').map(([k, v]) => [k, String(v)] as [string, string]));
          params.set('limit', String(limit));
          params.set('after', String(page.next.after));
          if (page.next.afterKey !== null) params.set('after_key', String(page.next.afterKey));
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
