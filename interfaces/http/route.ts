import { TSchema } from '@sinclair/typebox';
import { Request, Response } from 'express';
import { RequestContext } from '../../application/command-handler';
import { Principal } from '../../application/identity/principal';
import { Role, Scope } from '../../domain/identity/roles';
import { BodyLimits } from '../../infrastructure/config/config';

/**
 * Who may call a route. A key needs `scope`; `sessionOnly` refuses keys (403, "may not call");
 * `roles` lists the accounts allowed (any of them). Public routes need no credential.
 */
export type AuthRule = 'public' | {
  scope?: Scope; sessionOnly?: boolean; keyOnly?: boolean; roles?: readonly Role[]; rolesDetail?: string;
  /** Any valid credential passes here; the handler applies (and audits) the rest, as imports must. */
  handlerDecides?: boolean;
};

export interface VigilRequest extends Request {
  principal?: Principal;
  bearer?: string;
  clientAddress?: string;
  ctx?: RequestContext;
  route_?: RouteDef;
}

/**
 * A raw upload's bytes, taken off the request: a handler that passes them on this way does not
 * keep them (up to 32 MB) alive on `req` until the answer is sent, so the service can let go of
 * them as soon as it has read them.
 */
export function takeBody(req: VigilRequest): Buffer {
  const body = req.body as Buffer;
  req.body = undefined;
  return body;
}

export interface RouteDef {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI form, below /api/v1: /repositories/{id} */
  path: string;
  summary: string;
  tag: string;
  auth: AuthRule;
  /** Which VIGIL_MAX_BODY_* applies (spec 1 §8.1); the default when unnamed. */
  bodyLimit?: keyof BodyLimits;
  body?: TSchema;
  /** Content types of a non-JSON body (uploads): read raw, bounded. */
  rawBody?: string[];
  query?: TSchema;
  params?: TSchema;
  responses: Record<number, { description: string; schema?: TSchema }>;
  handler: (req: VigilRequest, res: Response) => Promise<unknown>;
}

export const BODY_LIMIT_SETTING: Record<keyof BodyLimits, string> = {
  default: 'VIGIL_MAX_BODY_DEFAULT', signIn: 'VIGIL_MAX_BODY_SIGN_IN', sarifImport: 'VIGIL_MAX_BODY_SARIF_IMPORT',
  coverageImport: 'VIGIL_MAX_BODY_COVERAGE_IMPORT', testReportImport: 'VIGIL_MAX_BODY_TEST_REPORT_IMPORT', sbomImport: 'VIGIL_MAX_BODY_SBOM_IMPORT',
  ruleSetUpload: 'VIGIL_MAX_BODY_RULE_SET_UPLOAD', ticketWebhook: 'VIGIL_MAX_BODY_TICKET_WEBHOOK', vexIngest: 'VIGIL_MAX_BODY_VEX_INGEST',
  agentResult: 'VIGIL_MAX_BODY_AGENT_RESULT', checklistTemplateImport: 'VIGIL_MAX_BODY_CHECKLIST_TEMPLATE_IMPORT',
};

/** Matches request paths against route paths (OpenAPI {param} form). */
export class RouteTable {
  private readonly compiled: Array<{ def: RouteDef; regex: RegExp }>;

  constructor(readonly routes: readonly RouteDef[]) {
    this.compiled = routes.map((def) => ({
      def,
      regex: new RegExp(`^/api/v1${def.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}|\{[^}]+\}/g, '[^/]+')}/?$`),
    }));
    // Literal segments win over parameters (/repositories/duplicates before /repositories/{id}).
    this.compiled.sort((a, b) => paramCount(a.def.path) - paramCount(b.def.path));
  }

  match(method: string, path: string): RouteDef | undefined {
    const m = method.toLowerCase();
    return this.compiled.find((c) => c.def.method === m && c.regex.test(path))?.def;
  }

  pathExists(path: string): boolean {
    return this.compiled.some((c) => c.regex.test(path));
  }
}

function paramCount(path: string): number {
  return (path.match(/\{/g) ?? []).length;
}

/** An Express path from the OpenAPI one. */
export function expressPath(path: string): string {
  return `/api/v1${path.replace(/\{([^}]+)\}/g, ':$1')}`;
}
