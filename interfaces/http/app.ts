import express, { NextFunction, Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { Config } from '../../infrastructure/config/config';
import { authMiddleware } from './auth';
import { clientAddress } from './client-address';
import { buildOpenApi } from './openapi';
import { HttpProblem, problem, problemHandler, sendProblem } from './problem';
import { BODY_LIMIT_SETTING, expressPath, RouteDef, RouteTable, VigilRequest } from './route';
import { WindowCounter } from './rate-limits';
import { refuseNul } from './refuse-nul';
import { Services } from './services';
import { swaggerUiHtml } from './swagger-ui';

/**
 * The Express application. Order matters: client address, then the body read under the route's
 * own limit (413 before anything else, spec 1 §8.1), then the credential and the route's access
 * rule (401/403), then the OpenAPI validation of the request (400), then the handler.
 */
export function createApp(config: Config, services: Services, routes: RouteDef[]) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  const table = new RouteTable(routes);
  const apiDoc = buildOpenApi(routes, { title: `${config.brandName} API`, version: config.version });

  app.use((req: VigilRequest, _res, next) => {
    req.clientAddress = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'] as string | undefined, config.trustedProxies);
    next();
  });

  // Bodies: bounded while read, by the matched route's limit.
  app.use((req: VigilRequest, res: Response, next: NextFunction) => {
    const route = table.match(req.method, req.path);
    const limitName = route?.bodyLimit ?? (req.path.startsWith('/api/v1/auth/') ? 'signIn' : 'default');
    const bytes = config.bodyLimits[limitName];
    (req as VigilRequest & { bodyLimit?: unknown }).bodyLimit = { bytes, setting: BODY_LIMIT_SETTING[limitName] };
    if (route?.rawBody) return express.raw({ limit: bytes, type: () => true })(req, res, next);
    return express.json({ limit: bytes, strict: true, type: () => true })(req, res, next);
  });
  app.use(refuseNul);

  app.use(authMiddleware({
    routes: table, identity: services.identity, clock: services.clock, commands: services.commands,
    keyRequests: new WindowCounter(config.apiKeyRequestsPerMinute, 60_000),
    bearerFailures: new WindowCounter(config.bearerFailuresPerWindow, config.bearerFailureWindowMs),
  }));

  if (config.apiDocsEnabled || config.swaggerUiEnabled) {
    const docsGuard = async (req: VigilRequest, _res: Response, next: NextFunction) => {
      if (config.anonymousApiDocs) return next();
      const bearer = req.headers.authorization?.replace(/^Bearer\s+/i, '') ?? (req.headers['x-api-key'] as string | undefined);
      const principal = bearer ? await services.identity.authenticate(bearer) : null;
      return principal ? next() : next(problem.unauthorized());
    };
    if (config.apiDocsEnabled) app.get('/v3/api-docs', docsGuard, (_req, res) => { res.json(apiDoc); });
    if (config.swaggerUiEnabled) app.get('/swagger-ui.html', (_req, res) => { res.type('html').send(swaggerUiHtml(config.brandName)); });
  }

  app.use(OpenApiValidator.middleware({
    apiSpec: apiDoc as never,
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
    validateResponses: false,
    validateSecurity: false,
    ignorePaths: (path: string) => !path.startsWith('/api/v1'),
    $refParser: { mode: 'dereference' },
  }));

  const router = express.Router();
  for (const route of routes) {
    router[route.method](expressPath(route.path), async (req: VigilRequest, res: Response, next: NextFunction) => {
      try {
        const result = await route.handler(req, res);
        if (res.headersSent) return;
        if (result === undefined) res.status(204).end();
        else res.status(res.statusCode === 200 && route.method === 'post' && route.responses[201] ? 201 : res.statusCode).json(result);
      } catch (error) {
        next(error);
      }
    });
  }
  app.use(router);
  app.use((req, res) => sendProblem(res, new HttpProblem(404, 'Not Found', `No route ${req.method} ${req.path}.`)));
  app.use(problemHandler(services.log));
  return { app, apiDoc };
}
