import type { TargetKind } from '../../domain/shared/target-kind';

/** The read-model table of each kind of target (projections/targets owns both). */
export const TARGET_TABLE = { repository: 'repositories', container: 'containers' } as const satisfies Record<TargetKind, string>;
