import { JsonSchema } from './schema-arbitrary';

export interface Parameter {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

/** One operation of the OpenAPI document, as the fuzz needs it. */
export interface Operation {
  /** "POST /repositories/{id}" */
  id: string;
  method: string;
  /** Below the server URL, in OpenAPI form: /repositories/{id} */
  path: string;
  pathParams: Parameter[];
  queryParams: Parameter[];
  /** The JSON body's schema, when the operation takes one. */
  body?: JsonSchema;
  /** Content types of a non-JSON upload. */
  uploadTypes?: string[];
  /** Needs a credential (security is not empty). */
  secured: boolean;
}

interface OpenApiDocument {
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, {
    parameters?: Array<{ name: string; in: string; required?: boolean; schema?: JsonSchema }>;
    requestBody?: { content: Record<string, { schema?: JsonSchema }> };
    security?: unknown[];
  }>>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every operation of the document, in its order. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const params = op.parameters ?? [];
      const of = (where: string) => params.filter((p) => p.in === where).map((p) => ({ name: p.name, required: !!p.required, schema: p.schema ?? {} }));
      const content = op.requestBody?.content ?? {};
      const json = content['application/json'];
      const isUpload = Object.values(content).some((c) => c.schema?.format === 'binary');
      ops.push({
        id: `${method.toUpperCase()} ${path}`, method, path, pathParams: of('path'), queryParams: of('query'),
        body: json && !isUpload ? json.schema ?? {} : undefined,
        uploadTypes: isUpload ? Object.keys(content) : undefined,
        secured: (op.security ?? []).length > 0,
      });
    }
  }
  return ops;
}

export function serverBase(doc: OpenApiDocument): string {
  return doc.servers?.[0]?.url ?? '';
}
