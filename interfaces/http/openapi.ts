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
      responses: Object.fromEntries(Object.entries(r.responses).map(([status, resp]) => [status, {
        description: resp.description,
        ...(resp.schema ? { content: { 'application/json': { schema: plain(resp.schema) } } } : {}),
      }])),
    };
    if (r.auth !== 'public') op.security = [{ bearer: [] }, { apiKey: [] }];
    else op.security = [];
    if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: plain(r.body) } } };
    if (r.rawBody) op.requestBody = { required: true, content: Object.fromEntries(r.rawBody.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])) };
    paths[r.path] = { ...(paths[r.path] ?? {}), [r.method]: op };
  }
  return {
    openapi: '3.1.0',
    info,
    servers: [{ url: '/api/v1' }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
  };
}

/** typebox schemas carry symbol keys; a JSON round trip leaves plain JSON Schema. */
function plain(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema ?? {}));
}
