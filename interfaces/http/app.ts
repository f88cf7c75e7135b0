import express, { NextFunction, RequestHandler, Response } from 'express';
import { Config } from '../../infrastructure/config/config';
import { authMiddleware } from './auth';
import { clientAddress } from './client-address';
import { buildOpenApi } from './openapi';
import { problem, problemHandler } from './problem';
import { BODY_LIMIT_SETTING, PageHandler, RouteDef, VigilRequest } from './route';
import { RouteTable } from './route-table';
import { dispatch, routeRequest } from './routing';
import { WindowCounter } from './rate-limits';
import { refuseNul } from './refuse-nul';
import { scimMiddleware } from './scim';
import { Services } from './services';
import { explorerPages } from './explorer/pages';
import { useRequestValidation } from './validation';
import { accessLog } from './ops/access-log';
import { metricsPage, requestMetrics } from './ops/metrics-page';
import { requestId } from './ops/request-id';
import { securityHeaders } from './ops/security-headers';
import { webPages } from './web-ui';

/**
 * The Express application. Order matters: client address, then the one match of the request
 * against the route table (routing.ts: 404 or 405 here, before anything is read or checked), then
 * the body read under the matched route's own limit (413, spec 1 §8.1), then the credential and the
 * route's access rule (401/403), then the OpenAPI validation of the request (400), then the handler
 * of the matched route.
 */
export function createApp(config: Config, services: Services, routes: RouteDef[], ops: { first?: RequestHandler[] } = {}) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const table = new RouteTable(routes);
  const apiDoc = buildOpenApi(routes, { title: `${config.brandName} API`, version: config.version });

  // The pages outside /api/v1, matched by their exact path like the routes (routing.ts).
  const pages = new Map<string, PageHandler>();
  if (config.apiDocsEnabled) {
    pages.set('/v3/api-docs', async (req, res) => {
      if (!config.anonymousApiDocs) {
        const bearer = req.headers.authorization?.replace(/^Bearer\s+/i, '') ?? (req.headers['x-api-key'] as string | undefined);
        const principal = bearer ? await services.identity.authenticate(bearer) : null;
        if (!principal) throw problem.unauthorized();
      }
      res.json(apiDoc);
    });
  }
  if (config.ops.metricsToken) pages.set('/metrics', metricsPage(services.metrics, config.ops.metricsToken));
  if (config.swaggerUiEnabled) for (const [path, page] of explorerPages(config.brandName)) pages.set(path, page);
  // The web interface: `/` and its built files under /ui/ (web-ui.ts, ADR 0020).
  for (const [path, page] of webPages(config.brandName, undefined, { singleSignOn: !!services.sso })) pages.set(path, page);

  // Operations (ops/): request id, security headers, one access-log line per request; first, so
  // that every answer (404s and problem documents included) carries them.
  for (const handler of ops.first ?? []) app.use(handler);
  app.use(requestId());
  app.use(securityHeaders());
  app.use((req: VigilRequest, _res, next) => {
    req.clientAddress = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'] as string | undefined, config.trustedProxies);
    next();
  });

  // Refused bearer secrets count per address across the API and SCIM (spec 1 §5).
  const bearerFailures = new WindowCounter(config.bearerFailuresPerWindow, config.bearerFailureWindowMs);
  app.use(accessLog(services.log.child({ component: 'http' }), [requestMetrics(services.metrics)]));
  app.use(scimMiddleware(services, bearerFailures)); // /scim/v2 (issue #14): its own table, token and error documents

  app.use(routeRequest(table, pages));

  // Bodies: bounded while read, by the matched route's limit.
  app.use((req: VigilRequest, res: Response, next: NextFunction) => {
    const route = req.route_;
    const limitName = route?.bodyLimit ?? 'default';
    const bytes = config.bodyLimits[limitName];
    (req as VigilRequest & { bodyLimit?: unknown }).bodyLimit = { bytes, setting: BODY_LIMIT_SETTING[limitName] };
    if (route?.rawBody) return express.raw({ limit: bytes, type: () => true })(req, res, next);
    return express.json({ limit: bytes, strict: true, type: () => true })(req, res, next);
  });
  app.use(refuseNul);

  app.use(authMiddleware({
    identity: services.identity, clock: services.clock,
    keyRequests: new WindowCounter(config.apiKeyRequestsPerMinute, 60_000),
    bearerFailures,
  }));

  useRequestValidation(app, apiDoc, pages);

  app.use(dispatch());
  app.use(problemHandler(services.log));
  return { app, apiDoc };
}
