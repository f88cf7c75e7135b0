import { RouteDef } from '../route';
import { Services } from '../services';
import { adminRoutes } from './admin';
import { auditRoutes } from './audit';
import { backlogRoutes } from './backlog';
import { credentialRoutes } from './credentials';
import { feedRoutes } from './feeds';
import { gateRoutes } from './gate';
import { identityRoutes } from './identity';
import { importRoutes } from './imports';
import { reportImportRoutes } from './report-imports';
import { scanRoutes } from './scans';
import { scorecardRoutes } from './scorecards';
import { singleSignOnRoutes } from './single-sign-on';
import { secondFactorRoutes } from './second-factor';
import { scimTokenRoutes } from './scim-token';
import { targetRoutes } from './targets';
import { triageRoutes } from './triage';

export function allRoutes(s: Services): RouteDef[] {
  return [...adminRoutes(s), ...feedRoutes(s), ...auditRoutes(s), ...identityRoutes(s), ...targetRoutes(s), ...backlogRoutes(s), ...triageRoutes(s), ...importRoutes(s), ...reportImportRoutes(s), ...gateRoutes(s), ...scanRoutes(s), ...scorecardRoutes(s), ...credentialRoutes(s),
    ...singleSignOnRoutes(s), ...secondFactorRoutes(s), ...scimTokenRoutes(s)];
}
