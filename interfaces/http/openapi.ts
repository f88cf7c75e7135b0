import { ANSWER_MEDIA_TYPES, ANSWER_SCHEMAS } from './openapi-answers';
import { problemComponents, PROBLEM_RESPONSES } from './openapi-problems';
import { RouteDef } from './route';

/**
 * The OpenAPI 3.1 document, generated from the routes' typebox schemas: the same schemas
 * express-openapi-validator enforces, so documentation and behaviour cannot drift apart.
 */
export function buildOpenApi(routes: readonly RouteDef[], info: { title: string; version: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const parameters: unknown[] = [];
    for (const [where, schema] of [['path', r.params], ['query', r.query]] as const) {
      const props = (schema as { properties?: Record<string, unknown>; required?: string[] } | undefined)?.properties ?? {};
      const required = new Set((schema as { required?: string[] } | undefined)?.required ?? []);
      // Query values may carry reserved characters as they are (a branch `feature/x` sent by a
      // pipeline without percent-encoding it): RFC 3986 allows them in a query.
      for (const [name, s] of Object.entries(props)) parameters.push({ name, in: where, required: where === 'path' || required.has(name), schema: plain(s), ...(where === 'query' ? { allowReserved: true } : {}) });
    }
    for (const match of r.path.matchAll(/\{([^}]+)\}/g)) {
      if (!parameters.some((p) => (p as { name: string }).name === match[1])) parameters.push({ name: match[1], in: 'path', required: true, schema: { type: 'string' } });
    }
    const op: Record<string, unknown> = {
      summary: r.summary,
      tags: [r.tag],
      operationId: `${r.method}${r.path.replace(/[{}]/g, '').split('/').map((s) => s.replace(/(^|[-_])(\w)/g, (_, __, c: string) => c.toUpperCase())).join('')}`,
      parameters,
      responses: responsesOf(r),
    };
    if (r.auth !== 'public') op.security = [{ bearer: [] }, { apiKey: [] }];
    else op.security = [];
    if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: plain(r.body) } } };
    if (r.rawBody) op.requestBody = { required: true, content: Object.fromEntries(r.rawBody.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])) };
    paths[r.path] = { ...(paths[r.path] ?? {}), [r.method]: op };
  }
  const problems = problemComponents();
  // Only the shared responses some operation refers to (an unused component is noise to a reader).
  const referenced = new Set([...JSON.stringify(paths).matchAll(/#\/components\/responses\/(\w+)/g)].map((m) => m[1]));
  const responses = Object.fromEntries(Object.entries(problems.responses).filter(([name]) => referenced.has(name)));
  return {
    openapi: '3.1.0',
    info: {
      ...info,
      description: 'Self-hosted scan-and-backlog service. Sign in with POST /auth/sign-in and send the token as `Authorization: Bearer <token>`, or send an integration key as `X-API-Key`. Refusals are application/problem+json.',
      license: { name: 'UNLICENSED: proprietary, see the repository', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/api/v1' }],
    paths,
    components: {
      schemas: problems.schemas,
      responses,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
  };
}

/**
 * An operation's answers: its success answers with their schema (the route's own, else
 * openapi-answers.ts) and its refusals as references to the shared problem responses, the ones the
 * route names plus those every route of its kind can give (400 always: a query parameter the
 * operation does not declare is refused; 401/403/429 behind a credential, 404 with a path
 * parameter, 413 with a body, 500 always).
 */
function responsesOf(r: RouteDef): Record<string, unknown> {
  const key = `${r.method} ${r.path}`;
  const statuses = new Set(Object.keys(r.responses).map(Number));
  statuses.add(400);
  if (r.auth !== 'public') { statuses.add(401); statuses.add(403); statuses.add(429); }
  if (r.path.includes('{')) statuses.add(404);
  if (r.body || r.rawBody) statuses.add(413);
  if (r.rawBody) statuses.add(415);
  statuses.add(500);
  // A list paged with `after` names its next page in a Link header (absent on the last page).
  const paged = Boolean((r.query as { properties?: Record<string, unknown> } | undefined)?.properties?.after);
  const link = { Link: { description: 'The next page, `<url>; rel="next"` (its query carries limit and the cursor after); absent on the last page', schema: { type: 'string' } } };
  const out: Record<string, unknown> = {};
  for (const status of [...statuses].sort((a, b) => a - b)) {
    const declared = r.responses[status];
    const schema = declared?.schema ? plain(declared.schema) : ANSWER_SCHEMAS[key]?.[status];
    if (status < 400 || schema) {
      out[status] = {
        description: declared?.description ?? 'OK',
        ...(paged && status === 200 ? { headers: link } : {}),
        ...(schema ? { content: { [ANSWER_MEDIA_TYPES[key] ?? 'application/json']: { schema } } } : {}),
      };
      continue;
    }
    const shared = PROBLEM_RESPONSES[status];
    out[status] = { $ref: `#/components/responses/${shared.name}`, ...(declared ? { description: declared.description } : {}) };
  }
  return out;
}

/** typebox schemas carry symbol keys; a JSON round trip leaves plain JSON Schema. */
function plain(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema ?? {}));
}
