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
  /**
   * The atomic claim (ADR 0006, 0017): in one short transaction, takes the lease rows of up to `max`
   * scans claimable by `executor` at `now` (oldest due first; the attempt each row names is the
   * scan's next one as the read model has it). Scans another claim is taking at that moment are
   * skipped, never waited for, so concurrent claimers take different scans. With `limit` (an
   * agent's max_concurrent) the executor's claimed, unreported, unexpired leases are counted under
   * its own lock first, and only the free slots are taken (atomic across instances).
   */
  reserveClaimable(executor: ClaimFilter, now: Date, max: number, leaseExpiresAt: string, limit?: number): Promise<Array<{ scanId: number; attempt: number }>>;
  /** The worker's claimed, unreported, unexpired leases. */
  held(worker: string, now: Date): Promise<number>;
  get(scanId: number, attempt: number): Promise<LeaseRow | undefined>;
  /** Moves the lease to `until`, only while `worker` holds it and it has not lapsed at `now`. */
  renew(scanId: number, attempt: number, worker: string, now: Date, until: string): Promise<boolean>;
  release(scanId: number, attempt: number): Promise<void>;
  /** Gives back reservations whose claim was not recorded (one statement). */
  releaseMany(rows: ReadonlyArray<{ scanId: number; attempt: number }>): Promise<void>;
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
  /** scanTarget of several targets at once (one query per kind), keyed `<kind>:<id>`; deleted ones absent. */
  scanTargets(refs: ReadonlyArray<{ kind: TargetKind; id: number }>): Promise<Map<string, ScanTarget>>;
  /** The repositories among these that name a stored credential (their scans need an executor able to hold it). */
  credentialed(repositoryIds: readonly number[]): Promise<ReadonlySet<number>>;
}

/**
 * Who claims, as the claim filters: the credential rule (S1.3.1-20), the labels it answers to and,
 * for an agent, its row id (a target pinned to an agent is claimed by that agent only, S1.2.1-20).
 */
export interface ClaimFilter {
  readonly worker: string;
  readonly holdsCredentials: boolean;
  readonly labels: readonly string[];
  /** The agent's row id; null for the built-in worker. */
  readonly agentId: number | null;
}

/** The scans read model as the lifecycle needs it (projections/scans/lifecycle-queries.ts). */
export interface ClaimableScans {
  /**
   * Ids of pending scans due at `now`, oldest due first, at most `limit`: none of a target with a scan
   * running, none whose next attempt is reserved already, and for an executor that cannot hold
   * credentials none that needs one (requested so, or of a repository naming a credential now).
   */
  claimable(now: Date, limit: number, holdsCredentials: boolean): Promise<number[]>;
  /** A short text that changes when the set of claimable scans changes; null when none is claimable. */
  signature(now: Date, holdsCredentials: boolean): Promise<string | null>;
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
