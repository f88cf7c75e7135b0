import { auditProjection } from './audit';
import { backlogProjection } from './backlog';
import { Projection } from './engine/projection';
import { identityProjection } from './identity';
import { sourcesProjection } from './sources';
import { targetsProjection } from './targets';

/** Every read model, in the order a rebuild replays them. */
export const allProjections: readonly Projection[] = [identityProjection, targetsProjection, backlogProjection, sourcesProjection, auditProjection];
