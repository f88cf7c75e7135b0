import { TSchema, Type } from '@sinclair/typebox';
import { Response } from 'express';
import { issueEtag } from '../../../projections/backlog/issue-queries';
import { WRITING_ROLES } from '../../../domain/identity/roles';
import { EXPIRES_IN_DAYS, NOT_AFFECTED_JUSTIFICATIONS, REFUSAL_STATUSES, TRIAGE_STATUSES } from '../../../domain/triage';
import { AuthRule, RouteDef, VigilRequest } from '../route';
import { MAX_ROW_ID, RowId } from '../row-id';
import { Services } from '../services';
import { Text } from '../text';

const Nullable = (s: TSchema) => Type.Union([s, Type.Null()]);
const literals = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));

const DecidableStatus = literals(TRIAGE_STATUSES.filter((s) => s !== 'pending_approval'));
const Comment = Type.Optional(Nullable(Text({ max: 4000, multiline: true })));
const ExpiresInDays = Type.Optional(Nullable(Type.Integer({ minimum: EXPIRES_IN_DAYS.min, maximum: EXPIRES_IN_DAYS.max })));
const Decision = {
  status: DecidableStatus,
  justification: Type.Optional(Nullable(literals(NOT_AFFECTED_JUSTIFICATIONS))),
  comment: Comment,
  expires_in_days: ExpiresInDays,
};
const Id = Type.Object({ id: RowId() });

/**
 * Who decides: a signed-in account that writes (administrator, CISO, security lead, writer). Integration
 * keys are refused (403 "may not call"): spec 1 names no triage scope, and a decision is a person's word
 * (four-eyes counts people). Tracker proposals and VEX imports reach the decider through their own routes.
 */
const decides: AuthRule = {
  sessionOnly: true, roles: WRITING_ROLES,
  rolesDetail: 'Triage is decided by an account that writes (administrator, CISO, security lead, writer).',
};

const ifMatchOf = (req: VigilRequest) => req.headers['if-match'];

/** Spec 1 §3.2 and §4.5: triage decisions, four-eyes approval and refusal, the exception register and its reviews. */
export function triageRoutes(s: Services): RouteDef[] {
  /** Decides, then answers the issue as the backlog's query reads it (the read models have the decision), with its new ETag. */
  const decidedThenRead = async (req: VigilRequest, res: Response, issueId: number, decision: Promise<void>) => {
    await decision;
    const issue = await s.backlogQueries.get(req.principal!, issueId);
    res.setHeader('ETag', issueEtag(issue.revision));
    return issue;
  };
  return [
    {
      method: 'post', path: '/issues/{id}/triage', tag: 'Triage', auth: decides, params: Id,
      summary: 'Triage one issue {status, justification?, comment?, expires_in_days?}. will_not_fix needs expires_in_days 1..3650 and takes no '
        + 'justification; a justification (not_affected only) is one of the CycloneDX ones. With triage_four_eyes a settling status is requested '
        + '(pending_approval). If-Match with the issue\'s ETag makes it conditional (409 issue-changed-meanwhile). Answers the issue with its new ETag.',
      body: Type.Object(Decision, { additionalProperties: false }),
      responses: {
        200: { description: 'The issue after the decision (ETag header)' }, 400: { description: 'Body refused' }, 403: { description: 'Not an account that writes, or a key' },
        404: { description: 'Unknown or not visible' }, 409: { description: 'issue-changed-meanwhile' },
      },
      handler: async (req, res) => decidedThenRead(req, res, Number(req.params.id), s.triage.triage(req.principal!, req.ctx!, Number(req.params.id), req.body, ifMatchOf(req))),
    },
    {
      method: 'post', path: '/issues/triage', tag: 'Triage', auth: decides,
      summary: 'Triage several issues with one decision: {issues: [{id, ifMatch?}] or ids: [id], status, justification?, comment?, expires_in_days?} '
        + '(up to 500). Each issue is decided on its own stream; the answer is 200 {decided, refused, results: [{id, outcome, type, detail, '
        + 'triageStatus, triageRequestedStatus, etag}]} in request order, outcome being the status a single triage would have answered '
        + '(200, 403, 404, 409 issue-changed-meanwhile when its ifMatch is stale, ...). A malformed decision or ifMatch, a repeated id, '
        + 'or both or neither of issues and ids: 400 and nothing is written.',
      body: Type.Object({
        issues: Type.Optional(Type.Array(Type.Object({ id: RowId(), ifMatch: Type.Optional(Nullable(Text({ max: 40 }))) }, { additionalProperties: false }), { minItems: 1, maxItems: 500 })),
        ids: Type.Optional(Type.Array(RowId(), { minItems: 1, maxItems: 500 })),
        ...Decision,
      }, { additionalProperties: false }),
      responses: { 200: { description: 'Per-issue outcomes' }, 400: { description: 'Request refused as a whole; nothing written' }, 403: { description: 'Not an account that writes, or a key' } },
      handler: async (req) => s.triage.triageMany(req.principal!, req.ctx!, req.body),
    },
    {
      method: 'post', path: '/issues/{id}/triage-approval', tag: 'Triage', auth: decides, params: Id,
      summary: 'Approve a pending_approval request {status}, naming the requested status (409 triage-approval-differs with requestedStatus '
        + 'otherwise); never by the account that asked (403). If-Match as for triage.',
      body: Type.Object({ status: literals(TRIAGE_STATUSES) }, { additionalProperties: false }),
      responses: {
        200: { description: 'The issue in the approved status (ETag header)' }, 403: { description: 'The requester, not an account that writes, or a key' },
        404: { description: 'Unknown or not visible' }, 409: { description: 'triage-approval-differs, nothing pending, or issue-changed-meanwhile' },
      },
      handler: async (req, res) => decidedThenRead(req, res, Number(req.params.id), s.triage.approve(req.principal!, req.ctx!, Number(req.params.id), req.body.status, ifMatchOf(req))),
    },
    {
      method: 'post', path: '/issues/{id}/triage-refusal', tag: 'Triage', auth: decides, params: Id,
      summary: 'Turn a pending_approval request down {status: under_review or affected, comment?}; the requester may withdraw their own. If-Match as for triage.',
      body: Type.Object({ status: literals(REFUSAL_STATUSES), comment: Comment }, { additionalProperties: false }),
      responses: {
        200: { description: 'The issue after the refusal (ETag header)' }, 404: { description: 'Unknown or not visible' },
        409: { description: 'Nothing pending, or issue-changed-meanwhile' },
      },
      handler: async (req, res) => decidedThenRead(req, res, Number(req.params.id), s.triage.turnDown(req.principal!, req.ctx!, Number(req.params.id), req.body, ifMatchOf(req))),
    },
    {
      method: 'get', path: '/exceptions', tag: 'Triage', auth: { scope: 'read' },
      summary: 'Exceptions on open issues you see: granted (a settled status in force) or requested (pending_approval); each entry has granted, '
        + 'requested_status, justification, comment, reviewDate, requestedBy. Filters repository_id, container_id, state=granted|requested; limit and after page by issue id.',
      query: Type.Object({
        repository_id: Type.Optional(RowId()), container_id: Type.Optional(RowId()),
        state: Type.Optional(literals(['granted', 'requested'])),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })), after: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ROW_ID })),
      }),
      responses: { 200: { description: 'Exceptions, by issue id' } },
      handler: async (req: VigilRequest, res: Response) => {
        const q = req.query as Record<string, unknown>;
        const limit = Number(q.limit ?? 100);
        const page = await s.exceptions.list(req.principal!, {
          repository_id: q.repository_id === undefined ? undefined : Number(q.repository_id), container_id: q.container_id === undefined ? undefined : Number(q.container_id),
          state: q.state as 'granted' | 'requested' | undefined, limit, after: Number(q.after ?? 0),
        });
        if (page.next !== null) {
          const params = new URLSearchParams(Object.entries(q).filter(([k]) => k !== 'after').map(([k, v]) => [k, String(v)] as [string, string]));
          params.set('limit', String(limit));
          params.set('after', String(page.next));
          res.setHeader('Link', `</api/v1/exceptions?${params}>; rel="next"`);
        }
        return page.items;
      },
    },
    {
      method: 'post', path: '/exceptions/{issueId}/reviews', tag: 'Triage', auth: decides, params: Type.Object({ issueId: RowId() }),
      summary: 'Review an exception {action: confirm|extend|revoke, expires_in_days?, comment?}: confirm keeps it; extend (will_not_fix only) sets the '
        + 'review date to now + expires_in_days, which must be later; revoke sends the issue back to under_review. Under four-eyes the account the '
        + 'exception rests on may not confirm or extend it. Answers the issue with its new ETag; If-Match as for triage.',
      body: Type.Object({ action: literals(['confirm', 'extend', 'revoke']), expires_in_days: ExpiresInDays, comment: Comment }, { additionalProperties: false }),
      responses: {
        200: { description: 'The issue after the review (ETag header)' }, 400: { description: 'Body refused' }, 403: { description: 'Four-eyes, not an account that writes, or a key' },
        404: { description: 'Unknown or not visible' }, 409: { description: 'No exception to review, date not later, or issue-changed-meanwhile' },
      },
      handler: async (req, res) => decidedThenRead(req, res, Number(req.params.issueId), s.triage.reviewException(req.principal!, req.ctx!, Number(req.params.issueId), req.body, ifMatchOf(req))),
    },
  ];
}
