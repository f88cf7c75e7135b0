import { RouteDef } from '../route';
import { Services } from '../services';
import { adminRoutes } from './admin';
import { identityRoutes } from './identity';
import { importRoutes } from './imports';
import { issueRoutes } from './issues';
import { targetRoutes } from './targets';

export function allRoutes(s: Services): RouteDef[] {
  return [...adminRoutes(s), ...identityRoutes(s), ...targetRoutes(s), ...issueRoutes(s), ...importRoutes(s)];
}
