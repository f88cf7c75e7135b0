import { Express } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { API_BASE } from './route-table';

/**
 * Request validation (400 with the fields) by express-openapi-validator against the generated
 * OpenAPI document. The validator finds the operation by a path lookup of its own, which reads
 * the app's routing settings: made case-sensitive here, and dispatch() (routing.ts) refuses to run
 * a handler when that lookup found another operation than the route table's match.
 */
export function useRequestValidation(app: Express, apiDoc: object, pages: ReadonlyMap<string, unknown> = new Map()): void {
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.use(OpenApiValidator.middleware({
    apiSpec: apiDoc as never,
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
    validateResponses: false,
    validateSecurity: false,
    // Pages (the API explorer's files under /api/v1/explorer) are no operations of the document.
    ignorePaths: (path: string) => !path.startsWith(API_BASE) || pages.has(path),
    $refParser: { mode: 'dereference' },
  }));
}
