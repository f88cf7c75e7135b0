import type { TargetKind } from '../../domain/shared/target-kind';
import type { SchedulingCandidate, TargetRef } from '../../domain/targets';
import type { ScanTarget } from '../ports/scanning';

/** A live claim of one scan attempt, as the lease store keeps it. */
export interface LeaseRow {
  scan_id: number;
  attempt: number;
  worker: string;
  claimed_at: string;
  lease_expires_at: string;
  renewed_at: string;
}

/**
 * The live claims of scans (ADR 0006): one row per claimed attempt, an operational store like the
 * sessions, never projected (infrastructure/scans/sql-scan-leases.ts). `reserve` is the atomic claim
 * across instances: of two executors reserving one attempt, exactly one gets true. Heartbeats move
 * the expiry here instead of writing an event each. The event log stays the source of truth: a row
 * without its ScanClaimed event is void (the lapse pass removes it), and a row whose attempt has
 * ended is released.
 */
export interface ScanLeaseStore {
  /** Takes attempt `attempt` of the scan for `worker`; false when another executor took it first. */
  reserve(scanId: number, attempt: number, worker: string, now: Date, leaseExpiresAt: string, limit?: number): Promise<boolean>;
  /** With `limit`: only while the worker holds fewer claimed, unreported, unexpired leases (atomic across instances). */
  held(worker: string, now: Date): Promise<number>;
  get(scanId: number, attempt: number): Promise<LeaseRow | undefined>;
  /** Moves the lease to `until`, only while `worker` holds it and it has not lapsed at `now`. */
  renew(scanId: number, attempt: number, worker: string, now: Date, until: string): Promise<boolean>;
  release(scanId: number, attempt: number): Promise<void>;
  /** Leases lapsed at `now`, oldest first. */
  lapsed(now: Date, limit: number): Promise<LeaseRow[]>;
}

/**
 * A background loop that must run on one instance at a time (the scheduler): the instance takes the
 * lease when it is free or lapsed, keeps it by taking it again each round, and gives it up when it
 * stops; a crashed holder is replaced after `ttlMs` (infrastructure/scans/sql-instance-lease.ts).
 */
export interface InstanceLease {
  acquire(now: Date, ttlMs: number): Promise<boolean>;
  release(): Promise<void>;
}

/**
 * What the scans context asks of the targets read model (projections/targets/scan-target-lookup.ts):
 * only these facts, so that the targets context may change around them.
 */
export interface TargetLookup {
  /** The target's id and project, for visibility; null when there is no such target. */
  visibilityRow(kind: TargetKind, id: number): Promise<{ id: number; projectId: number | null } | null>;
  /** What an executor needs of the target (clone URL, branch, sub-path, or image); null when it was deleted. */
  scanTarget(kind: TargetKind, id: number): Promise<ScanTarget | null>;
  /** The repositories among these that name a stored credential (their scans need an executor able to hold it). */
  credentialed(repositoryIds: readonly number[]): Promise<ReadonlySet<number>>;
}

/** The scans read model as the lifecycle needs it (projections/scans/lifecycle-queries.ts). */
export interface ClaimableScans {
  /**
   * Ids of pending scans due at `now`, oldest due first, at most `limit`: none of a target with a scan
   * running, none whose next attempt is reserved already, and for an executor that cannot hold
   * credentials none that needs one (requested so, or of a repository naming a credential now).
   */
  claimable(now: Date, limit: number, holdsCredentials: boolean): Promise<number[]>;
  /** Scans running without a lease row for their attempt, claimed at or before `claimedBefore`. */
  unleased(claimedBefore: Date, limit: number): Promise<Array<{ scanId: number; attempt: number; startedAt: string }>>;
}

/** What a scheduling round reads (projections/scans/scheduling-queries.ts). */
export interface SchedulingReads {
  /** Every target that is not manual-only, both kinds. */
  candidates(): Promise<SchedulingCandidate[]>;
  /** Targets with a scan pending or running. */
  busy(): Promise<ReadonlySet<TargetRef>>;
}

/** The installation settings, read by name (scan_default_interval_days). */
export interface SettingsReader {
  get(name: string): Promise<unknown>;
}
