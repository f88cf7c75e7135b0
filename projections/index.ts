import { auditProjection } from './audit';
import { backlogProjection } from './backlog';
import { credentialsProjection } from './credentials';
import { Projection } from './engine/projection';
import { withEnrichment } from './enrichment';
import { gateProjection } from './gate';
import { identityProjection } from './identity';
import { importsProjection } from './imports';
import { scansProjection } from './scans';
import { scorecardsProjection } from './scorecards';
import { sourcesProjection } from './sources';
import { targetsProjection } from './targets';

/** Every read model, in the order a rebuild replays them. */
export const allProjections: readonly Projection[] = [identityProjection, targetsProjection, withEnrichment(backlogProjection), scansProjection, scorecardsProjection, sourcesProjection, importsProjection, gateProjection, credentialsProjection, auditProjection];
