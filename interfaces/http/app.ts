import express, { NextFunction, Response } from 'express';
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
import { Services } from './services';
import { swaggerUiHtml } from './swagger-ui';
import { useRequestValidation } from './validation';
import { webPages } from './web-ui';

/**
 * The Express application. Order matters: client address, then the one match of the request
 * against the route table (routing.ts: 404 or 405 here, before anything is read or checked), then
 * the body read under the matched route's own limit (413, spec 1 §8.1), then the credential and the
 * route's access rule (401/403), then the OpenAPI validation of the request (400), then the handler
 * of the matched route.
 */
export function createApp(config: Config, services: Services, routes: RouteDef[]) {
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
  if (config.swaggerUiEnabled) pages.set('/swagger-ui.html', async (_req, res) => { res.type('html').send(swaggerUiHtml(config.brandName)); });
  // The web interface: `/` and its built files under /ui/ (web-ui.ts, ADR 0020).
  for (const [path, page] of webPages(config.brandName)) pages.set(path, page);

  app.use((req: VigilRequest, _res, next) => {
    req.clientAddress = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'] as string | undefined, config.trustedProxies);
    next();
  });

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
    bearerFailures: new WindowCounter(config.bearerFailuresPerWindow, config.bearerFailureWindowMs),
  }));

  useRequestValidation(app, apiDoc);

  app.use(dispatch());
  app.use(problemHandler(services.log));
  return { app, apiDoc };
}
