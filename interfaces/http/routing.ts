import { NextFunction, Response } from 'express';
import { HttpProblem, problem, sendProblem } from './problem';
import { PageHandler, RouteDef, VigilRequest } from './route';
import { API_BASE, pathOf, RouteTable } from './route-table';

/**
 * The one decision of what a request is, taken before its body is read or its credential looked
 * at: a page (exact path, GET or HEAD), a declared route (exact path and method, table.resolve),
 * 405 for a declared path asked with another method, 404 for anything else. Body limits, the
 * credential check and the handler all follow from this match; nothing matches the path again.
 */
export function routeRequest(table: RouteTable, pages: ReadonlyMap<string, PageHandler>) {
  return (req: VigilRequest, res: Response, next: NextFunction) => {
    const path = pathOf(req.url);
    const page = pages.get(path);
    if (page) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return sendProblem(res, problem.notFound(`No route ${req.method} ${path}.`));
      req.page_ = page;
      return next();
    }
    const found = table.resolve(req.method, req.url);
    if (found.kind === 'route') {
      req.route_ = found.route;
      req.routeParams = found.params;
      return next();
    }
    if (found.kind === 'other-method') return sendProblem(res, new HttpProblem(405, 'Method Not Allowed', `${req.method} is not allowed on ${path}.`));
    return sendProblem(res, problem.notFound(`No route ${req.method} ${path}.`));
  };
}

/** The last step: runs the handler routeRequest chose, with the parameters it decoded. */
export function dispatch() {
  return async (req: VigilRequest, res: Response, next: NextFunction) => {
    try {
      if (req.page_) return await req.page_(req, res);
      const route = req.route_;
      if (!route) throw new Error(`No route was matched for ${req.method} ${req.path}.`);
      // The request validator finds its operation by a path lookup of its own; a request it took
      // for another operation was checked against the wrong schema, so it goes no further.
      const validated = (req as VigilRequest & { openapi?: { openApiRoute?: string } }).openapi?.openApiRoute;
      if (validated !== `${API_BASE}${route.path}`) throw new Error(`The request validator took ${req.method} ${req.path} for ${validated}, the route table for ${route.path}.`);
      req.params = req.routeParams ?? {};
      refuseLooseIntegers(route.params, req.params);
      const result = await route.handler(req, res);
      if (res.headersSent) return;
      if (result === undefined) res.status(204).end();
      else res.status(res.statusCode === 200 && route.method === 'post' && route.responses[201] ? 201 : res.statusCode).json(result);
    } catch (error) {
      next(error);
    }
  };
}

/**
 * An integer path parameter is digits and nothing else. The request validator reads "Infinity",
 * "1e3" or "0x10" as numbers (Infinity even passes its maximum), and the database then fails on
 * the value with a 500 (found by the fuzz suite): such a path is malformed, 400.
 */
function refuseLooseIntegers(schema: RouteDef['params'], params: Record<string, string>): void {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> } | undefined)?.properties ?? {};
  for (const [name, property] of Object.entries(properties)) {
    const value = params[name];
    if (property.type === 'integer' && value !== undefined && !/^(0|[1-9][0-9]{0,9})$/.test(value)) {
      throw problem.badRequest(`The request is not valid: params.${name} must be a whole number written in decimal digits.`);
    }
  }
}
