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
  /** The one match of the request (routing.ts): a declared route and its decoded path parameters, */
  route_?: RouteDef;
  routeParams?: Record<string, string>;
  /** or a page outside /api/v1. */
  page_?: PageHandler;
  /** X-Request-Id (ops/request-id.ts): the caller's when well-formed, otherwise a fresh UUID. */
  requestId?: string;
}

/** A page outside /api/v1 (the OpenAPI document, its UI): it applies its own access rule. */
export type PageHandler = (req: VigilRequest, res: Response) => Promise<void>;

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
  /**
   * The handler refuses control characters itself and audits the attempt (sign-in: a hostile name is
   * worth recording), so the NUL screen in front of every route (refuse-nul.ts) lets its body through.
   */
  screensOwnText?: boolean;
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
