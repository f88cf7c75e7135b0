import { RouteDef } from '../route';
import { Services } from '../services';
import { adminRoutes } from './admin';
import { agentRoutes } from './agents';
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
import { siemRoutes } from './siem';
import { singleSignOnRoutes } from './single-sign-on';
import { secondFactorRoutes } from './second-factor';
import { scimTokenRoutes } from './scim-token';
import { targetRoutes } from './targets';
import { triageRoutes } from './triage';
import { exportRoutes } from './exports';

export function allRoutes(s: Services): RouteDef[] {
  return [
    ...adminRoutes(s),
    ...agentRoutes(s),
    ...auditRoutes(s),
    ...backlogRoutes(s),
    ...credentialRoutes(s),
    ...feedRoutes(s),
    ...gateRoutes(s),
    ...identityRoutes(s),
    ...importRoutes(s),
    ...reportImportRoutes(s),
    ...scanRoutes(s),
    ...scorecardRoutes(s),
    ...siemRoutes(s),
    ...singleSignOnRoutes(s),
    ...secondFactorRoutes(s),
    ...scimTokenRoutes(s),
    ...targetRoutes(s),
    ...triageRoutes(s),
    ...exportRoutes(s),
  ];
}
