import type { KnownIssue } from '../../domain/backlog/reconcile';
import type { TargetKind } from '../../domain/shared/target-kind';

/** Which part of a target's backlog a report speaks for: the tool keys it covers. */
export interface BacklogScope {
  targetKind: TargetKind;
  targetId: number;
  toolKeys: readonly string[];
}

/**
 * The backlog of a scope as the `issues` read model holds it, by issue key, each with the revision
 * of its stream (the expected revision of the next append); projections/backlog/known-issues.ts.
 */
export interface BacklogReader {
  known(scope: BacklogScope): Promise<Map<string, KnownIssue>>;
}
