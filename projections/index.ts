import { agentsProjection } from './agents/projection';
import { auditProjection } from './audit/projection';
import { backlogProjection } from './backlog/projection';
import { credentialsProjection } from './credentials/projection';
import { Projection } from './engine/projection';
import { withEnrichment } from './enrichment/projection';
import { gateProjection } from './gate/projection';
import { identityProjection } from './identity/projection';
import { ssoProjection } from './identity/sso-projection';
import { secondFactorProjection } from './identity/second-factor-projection';
import { scimProjection } from './identity/scim-projection';
import { importsProjection } from './imports/projection';
import { scansProjection } from './scans/projection';
import { scorecardsProjection } from './scorecards/projection';
import { siemProjection } from './siem/projection';
import { sourcesProjection } from './sources/projection';
import { targetsProjection } from './targets/projection';
import { targetPlacementsProjection } from './targets/placements-projection';

/** Every read model, in the order a rebuild replays them. */
export const allProjections: readonly Projection[] = [
  identityProjection,
  ssoProjection,
  secondFactorProjection,
  scimProjection,
  targetsProjection,
  targetPlacementsProjection,
  withEnrichment(backlogProjection),
  scansProjection,
  scorecardsProjection,
  sourcesProjection,
  importsProjection,
  gateProjection,
  credentialsProjection,
  agentsProjection,
  auditProjection,
  siemProjection,
];
