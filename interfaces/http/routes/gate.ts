import { Type } from '@sinclair/typebox';
import { Response } from 'express';
import { gateAnswerJson, GateRequest, MAY_NOT_ASK } from '../../../application/gate/gate-service';
import { WRITING_ROLES } from '../../../domain/identity/roles';
import { refuse } from '../../../domain/shared/decider';
import { RouteDef, VigilRequest } from '../route';
import { RowId } from '../row-id';
import { Services } from '../services';
import { width } from '../../../domain/shared/column-widths';
import { Text } from '../text';

const Policy = Type.Object({
  include_triaged: Type.Optional(Type.Boolean()),
  fixable_only: Type.Optional(Type.Boolean()),
  // Any value: a bad one is the domain's "400 Unknown severity" (spec 1 §7), not a schema message.
  severity: Type.Optional(Type.Unknown({ description: 'Threshold: critical, high (default), medium or low' })),
  include_plugins: Type.Optional(Type.Boolean()),
  min_line_coverage: Type.Optional(Type.Number({ description: 'Vigil extension: minimum line coverage in percent of the newest coverage import (repositories); unset, no coverage rule' })),
}, { additionalProperties: false });

const GateBody = Type.Object({
  repositoryId: Type.Optional(RowId()),
  containerId: Type.Optional(RowId()),
  repositoryUrl: Type.Optional(Text({ minLength: 1, max: width('repositories.url') })),
  branch: Type.Optional(Text({ max: width('repositories.branch') })),
  policy: Type.Optional(Type.Union([Policy, Type.Null()])),
}, { additionalProperties: false });

const Violation = Type.Object({
  rule: Type.String(), reason: Type.String(), issueId: Type.Optional(Type.Integer()), identifier: Type.Optional(Type.String()),
  severity: Type.Optional(Type.String()), package: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  path: Type.Optional(Type.String({ description: 'The finding\'s file, when the issue has one' })), line: Type.Optional(Type.Integer({ minimum: 1 })),
});

const Verdict = Type.Object({
  id: Type.Integer(), targetKind: Type.String(), targetId: Type.Integer(), passed: Type.Boolean(), violations: Type.Array(Violation),
  policy: Type.Object({}), at: Type.String(),
});

const VerdictQuery = Type.Object({
  target_kind: Type.Optional(Type.Union([Type.Literal('repository'), Type.Literal('container')])),
  target_id: Type.Optional(RowId()),
  since: Type.Optional(Text({ max: 40, description: 'ISO 8601 time: verdicts at or after it' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  before: Type.Optional(RowId({ description: 'page cursor: verdicts older than this id (the Link rel="next" header carries it)' })),
});

/** ISO 8601 with a date and a time, normalised to the register's UTC form so that text order is time order. */
function parseSince(value: string): string {
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) throw refuse.invalid('since must be an ISO 8601 time, e.g. 2026-01-01T00:00:00Z.');
  return new Date(ms).toISOString();
}

/** POST /gate and the verdict register GET /gate/verdicts (spec 1 §2.8, §4.1, §7; CONVENTIONS.md). */
export function gateRoutes(s: Services): RouteDef[] {
  return [
    {
      method: 'post', path: '/gate', tag: 'Gate',
      summary: 'Ask the CI gate about one target: {repositoryId} or {containerId} or {repositoryUrl, branch}, optional policy '
        + '{include_triaged, fixable_only, severity, include_plugins}. 200 {passed, violations} for a pass and for a refusal by policy; '
        + 'every call writes one verdict. A key needs scope scan; the account must write and be neither auditor nor platform governor.',
      auth: { scope: 'scan', roles: WRITING_ROLES, rolesDetail: MAY_NOT_ASK },
      body: GateBody,
      responses: {
        200: { description: 'The verdict', schema: Verdict }, 400: { description: 'Unknown severity, or the target named badly' },
        401: { description: 'No or bad credential' }, 403: { description: 'Key without scope scan, or an account that may not ask' },
        404: { description: 'Unknown target, or outside the key\'s restriction or the caller\'s view' },
      },
      // The answer's text is spliced from the verdict's serialised violations (gateAnswerJson).
      handler: async (req: VigilRequest, res: Response) => {
        const answer = await s.gate.ask(req.ctx!, req.principal!, req.body as GateRequest);
        res.status(200).type('application/json').send(gateAnswerJson(answer));
      },
    },
    {
      method: 'get', path: '/gate/verdicts', tag: 'Gate',
      summary: 'The verdict register, newest first, on targets you see; filters target_kind, target_id, since; limit and before page through it (Link rel="next")',
      auth: { scope: 'read' }, query: VerdictQuery,
      responses: { 200: { description: 'Verdicts' } },
      handler: async (req: VigilRequest, res: Response) => {
        const q = req.query as Record<string, string | undefined>;
        const limit = Number(q.limit ?? 50);
        const page = await s.verdicts.list(req.principal!, {
          targetKind: q.target_kind as 'repository' | 'container' | undefined, targetId: q.target_id === undefined ? undefined : Number(q.target_id),
          since: q.since === undefined ? undefined : parseSince(q.since), limit, before: q.before === undefined ? undefined : Number(q.before),
        });
        if (page.next !== null) {
          const params = new URLSearchParams(Object.entries(q).filter(([k, v]) => k !== 'before' && v !== undefined).map(([k, v]) => [k, String(v)] as [string, string]));
          params.set('limit', String(limit));
          params.set('before', String(page.next));
          res.setHeader('Link', `</api/v1/gate/verdicts?${params}>; rel="next"`);
        }
        return page.items;
      },
    },
  ];
}
