import type { GateIssue, GatePolicy, LineCoverage } from '../../domain/gate';
import type { TargetObservation } from '../../domain/gate/observation';
import type { TargetKind } from '../../domain/shared/target-kind';

/** What the gate reads of a target before its issues: the row (for visibility), its scans, the backlog's version. */
export interface TargetState {
  row: { id: number; project_id: number | null };
  observation: TargetObservation;
  /** The BacklogVersion, read in the same statement, before the candidate issues. */
  backlogVersion: string;
}

/** A repository as the {repositoryUrl, branch} form picks it: enough to see it and to name its sub-path. */
export interface RepositoryRef {
  id: number;
  projectId: number | null;
  subPath: string;
}

/**
 * The gate's reads (projections/gate implements them). Each CI pipeline asks the gate, so these
 * are its own prepared statements (ADR 0008): `targetState` is one statement for the target's
 * row, its scan observation and the backlog version; `candidateIssues` one statement per policy
 * shape (candidateShape).
 */
export interface GateReads {
  /** Null when no such target exists. */
  targetState(kind: TargetKind, id: number): Promise<TargetState | null>;
  /**
   * The open issues that can violate under the policy: KEV-listed or at or above the threshold,
   * less what the flags leave out. The domain function applies the same rules again to what comes
   * back, so it stays the authority.
   */
  candidateIssues(kind: TargetKind, id: number, policy: GatePolicy): Promise<readonly GateIssue[]>;
  /** The newest coverage import's line counts of a repository, null when it has none. */
  lineCoverage(repositoryId: number): Promise<LineCoverage | null>;
  /** The repository holding this uniqueness key (identity, branch, sub-path), if any. */
  repositoryByKey(uniquenessKey: string): Promise<RepositoryRef | null>;
  /** Every repository of that identity on that branch, whatever its sub-path, by id. */
  repositoriesOf(identity: string, branch: string): Promise<RepositoryRef[]>;
}

/**
 * The version of the backlog read model (projections/gate/backlog-version.ts): it moves with every
 * event the projections writing `issues` apply, and with nothing else. The verdict cache keys on it.
 */
export interface BacklogVersion {
  read(): Promise<string>;
}

/**
 * A policy's shape for the candidate read: its threshold and flags. One prepared statement per
 * shape (at most 32), and the verdict cache's key names it.
 */
export function candidateShape(policy: GatePolicy): string {
  return `${policy.severity}_${policy.includePlugins ? 1 : 0}${policy.includeTriaged ? 1 : 0}${policy.fixableOnly ? 1 : 0}`;
}
