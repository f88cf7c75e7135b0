/**
 * The reusable parts of the OpenAPI document: the problem document (RFC 9457) every refusal
 * answers, and one named response per refusal status, which operations reference instead of
 * repeating it.
 */
export const PROBLEM_SCHEMA = {
  type: 'object',
  description: 'application/problem+json (RFC 9457). `type` appears only for the conflicts spec 1 §7 names (urn:vigil:problem:<name>); other members extend it (errors, limit, scanId, repositoryIds ...).',
  required: ['title', 'status', 'detail'],
  properties: {
    type: { type: 'string', pattern: '^urn:vigil:problem:[a-z0-9-]+$', examples: ['urn:vigil:problem:issue-changed-meanwhile'] },
    title: { type: 'string', examples: ['Bad Request'] },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string', description: 'Written for a person: what was refused and why.', examples: ['body.name is 201 characters; at most 200'] },
    errors: { type: 'array', description: 'The request validator\'s findings (400 only)', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
  },
  additionalProperties: true,
};

/** Status -> component name and the description every operation shares (an operation may say more). */
export const PROBLEM_RESPONSES: Record<number, { name: string; description: string }> = {
  400: { name: 'BadRequest', description: 'The request is malformed or breaks a rule; nothing was written.' },
  401: { name: 'Unauthorized', description: 'No valid credential.' },
  403: { name: 'Forbidden', description: 'The credential may not do this (the detail names the scope or role).' },
  404: { name: 'NotFound', description: 'No such resource, or one the caller does not see.' },
  405: { name: 'MethodNotAllowed', description: 'The path is declared for other methods.' },
  409: { name: 'Conflict', description: 'The state forbids it now (a `type` names the conflict where spec 1 §7 does).' },
  410: { name: 'Gone', description: 'The resource was removed.' },
  412: { name: 'PreconditionFailed', description: 'A precondition header did not hold.' },
  413: { name: 'ContentTooLarge', description: 'The body is over this route\'s limit (the detail names the VIGIL_MAX_BODY_* setting).' },
  415: { name: 'UnsupportedMediaType', description: 'The content type is not accepted here.' },
  429: { name: 'TooManyRequests', description: 'A rate limit or a failure ceiling was reached; see Retry-After.' },
  500: { name: 'InternalError', description: 'Something went wrong on Vigil\'s side; it was logged with the request id.' },
  502: { name: 'BadGateway', description: 'A service Vigil depends on for this request (an identity provider, a collector) did not answer well.' },
  503: { name: 'Unavailable', description: 'A store Vigil needs does not answer.' },
};

export function problemComponents() {
  const problem = { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } };
  const headers = {
    'X-Request-Id': { description: 'The request id, also in the access log', schema: { type: 'string' } },
  };
  return {
    schemas: { Problem: PROBLEM_SCHEMA },
    responses: Object.fromEntries(Object.values(PROBLEM_RESPONSES).map(({ name, description }) => [name, { description, headers, content: problem }])),
  };
}
