import { VigilRequest } from '../route';
import { API_BASE, pathOf } from '../route-table';

/**
 * What a request is called in the access log and the metrics: the route's template
 * (`/api/v1/issues/{id}`), never the path itself, which may hold a badge token or an id per
 * request (unbounded label values, secrets in logs). A page outside /api/v1 is named by its fixed
 * path; a request no route matched is `unmatched`.
 */
export function routeLabel(req: VigilRequest): string {
  if (req.route_) return `${API_BASE}${req.route_.path}`;
  if (req.page_) return pathOf(req.url);
  return 'unmatched';
}
