import type { Finding, Provenance } from '../../domain/backlog/issue';
import { fitFinding } from '../../domain/backlog/fit';
import { DomainError } from '../../domain/shared/decider';
import { CompleteScan, FailureKind, LEASE_MS, leaseExpiry, scanDecider, ScanEvent, ScanState, StepSummary } from '../../domain/scans';
import { waitingDecider } from '../../domain/scans/waiting';
import type { TargetKind } from '../../domain/shared/target-kind';
import { BacklogService } from '../backlog/backlog-service';
import { CommandHandler, RequestContext, StreamDecisions } from '../command-handler';
import { Clock } from '../ports/clock';
import { WrongExpectedRevision } from '../ports/event-store';
import { ArtifactNormaliser, SCAN_STEPS, ScanFailure, ScanResult, ScanTarget } from '../ports/scanning';
import { ClaimableScans, ScanLeaseStore, TargetLookup } from './ports';
import { ScanQueueSignal } from './queue-signal';
import { TARGET_NOUN } from '../../domain/shared/target-kind';
import { streams } from '../../domain/shared/streams';

/** Who claims: the built-in worker today, an agent later. Both go through this class (S1.3.1-21). */
export interface ScanExecutorIdentity {
  /** `embedded:<instance>` or `agent:<id>`. */
  readonly worker: string;
  /** Can hold a credential a scan needs (S1.3.1-05, S1.3.1-20). */
  readonly holdsCredentials: boolean;
  /** Labels it answers to (VIGIL_WORKER_LABELS, an agent's VIGIL_AGENT_LABELS). */
  readonly labels: readonly string[];
  /**
   * An agent's max_concurrent: the lease store counts its claimed, unreported, unexpired scans in the
   * database at each claim (S1.4.7-15). Absent: the caller bounds itself (the built-in worker).
   */
  readonly limit?: number;
  /** An agent's row id (a target pinned to an agent is claimed by it alone); absent for the built-in worker. */
  readonly agentId?: number;
}

export interface ClaimedScan {
  readonly scanId: number;
  readonly attempt: number;
  readonly worker: string;
  readonly target: ScanTarget;
  readonly leaseExpiresAt: string;
}

export type ReportOutcome = 'completed' | 'retry' | 'failed' | 'refused';

interface Log {
  info(message: string, meta?: unknown): void;
  warn(message: string, meta?: unknown): void;
  error(message: string, meta?: unknown): void;
}

const quiet: Log = { info: () => undefined, warn: () => undefined, error: () => undefined };
const MAX_LICENCES_KEPT = 1000;
const LAPSE_BATCH = 200;

/**
 * The scan lifecycle after the request (spec 1 §3.1), the same for every executor: claim, lease
 * renewal, result, failure, and the lapse of leases nobody renewed. Every decision is the Scan
 * decider's, taken in a unit of work of the command handler (read, decide, record; run again on a
 * conflict); the lease store (ScanLeaseStore) only arbitrates who may claim and keeps the heartbeat
 * time (ADR 0006).
 *
 * Claim: candidates from the `scans` read model (pending, due, the credential rule, no scan of the
 * target running, attempt not reserved), then per candidate: decide ClaimScan on the stream, reserve
 * the (scan, attempt) lease row (the atomic step: a second instance's reservation fails and it moves
 * on), record ScanClaimed with the waiting reservation's release in one commit.
 */
export class ScanLifecycle {
  constructor(
    private readonly commands: CommandHandler,
    private readonly backlog: BacklogService,
    private readonly leases: ScanLeaseStore,
    private readonly scans: ClaimableScans,
    private readonly targets: TargetLookup,
    private readonly clock: Clock,
    private readonly settings: { retryDelaysMs: readonly number[] },
    private readonly normaliser: ArtifactNormaliser | null,
    private readonly log: Log = quiet,
    private readonly queue: ScanQueueSignal | null = null,
  ) {}

  get canNormalise(): boolean {
    return this.normaliser !== null;
  }

  private ctx(now: Date, correlationId: string): RequestContext {
    return { actor: null, address: null, userAgent: null, correlationId, now };
  }

  // ---- claim -------------------------------------------------------------------------------

  /**
   * Claims up to `max` due scans for the executor, oldest due first, in two steps. First the lease
   * store reserves the lease rows in one short transaction (the atomic step: concurrent claimers
   * skip each other's scans; an agent's free slots are counted under its own lock). Then one unit of
   * work records every reserved claim: the scan streams and the targets' waiting reservations read
   * together, ClaimScan decided on each, ScanClaimed and the releases appended in one commit. A
   * reservation the decider refuses (the read model was behind the log) is given back.
   * `readYourWrites: false` answers without waiting for the read models (an agent reads none: a
   * claim not yet projected is still left out of the next candidates by its lease row).
   */
  async claim(executor: ScanExecutorIdentity, max: number, options: { readYourWrites?: boolean } = {}): Promise<ClaimedScan[]> {
    if (max <= 0) return [];
    const now = this.clock.now();
    const filter = { worker: executor.worker, holdsCredentials: executor.holdsCredentials, labels: executor.labels, agentId: executor.agentId ?? null };
    const reserved = await this.leases.reserveClaimable(filter, now, max, leaseExpiry(now), executor.limit);
    if (reserved.length === 0) return [];
    const kept = new Set<number>();
    try {
      let decided: Array<{ scanId: number; attempt: number; leaseExpiresAt: string; targetKind: TargetKind; targetId: number }>;
      try {
        ({ value: decided } = await this.commands.transact(this.ctx(now, `claim:${executor.worker}`), async (unit) => {
          const scans = await unit.loadMany(reserved.map((r) => streams.scan(r.scanId)), scanDecider);
          const out: typeof decided = [];
          const targets = new Set<string>();
          reserved.forEach((r, i) => {
            let events: ScanEvent[];
            try {
              events = scanDecider.decide({ type: 'ClaimScan', worker: executor.worker, holdsCredentials: executor.holdsCredentials, now }, scans[i].state);
            } catch (error) {
              if (error instanceof DomainError) return; // no longer pending, not due, or needs a credential
              throw error;
            }
            const claimed = events[0];
            if (claimed.type !== 'ScanClaimed') throw new Error('ClaimScan decided something else than ScanClaimed');
            const { attempt, leaseExpiresAt, targetKind, targetId } = claimed.data;
            // The row names the attempt the read model saw; another attempt is the log's: give it back.
            if (attempt !== r.attempt || targets.has(`${targetKind}:${targetId}`)) return;
            targets.add(`${targetKind}:${targetId}`);
            unit.record(streams.scan(r.scanId), events, scans[i].revision ?? 'no_stream');
            out.push({ scanId: r.scanId, attempt, leaseExpiresAt, targetKind, targetId });
          });
          // A request on a target meanwhile moves its waiting stream: the whole unit runs again.
          const waiting = await unit.loadMany(out.map((d) => streams.scanWaiting(d.targetKind, d.targetId)), waitingDecider);
          out.forEach((d, i) => unit.record(streams.scanWaiting(d.targetKind, d.targetId),
            waitingDecider.decide({ type: 'Release', targetKind: d.targetKind, targetId: d.targetId, scanId: d.scanId }, waiting[i].state), waiting[i].revision ?? 'no_stream'));
          return out;
        }, { wait: options.readYourWrites !== false }));
      } catch (error) {
        if (error instanceof WrongExpectedRevision) return []; // still contended after every attempt: the next poll tries again
        throw error;
      }
      for (const d of decided) kept.add(d.scanId); // these claims stand: their rows live until the attempts end
      const targets = await this.targets.scanTargets(decided.map((d) => ({ kind: d.targetKind, id: d.targetId })));
      const claims: ClaimedScan[] = [];
      for (const d of decided) {
        const target = targets.get(`${d.targetKind}:${d.targetId}`);
        const claim: ClaimedScan = { scanId: d.scanId, attempt: d.attempt, worker: executor.worker, leaseExpiresAt: d.leaseExpiresAt, target: target ?? { kind: d.targetKind, id: d.targetId } };
        if (target) claims.push(claim);
        else await this.fail(claim, new ScanFailure('permanent', `The ${TARGET_NOUN[d.targetKind]} ${d.targetId} no longer exists.`));
      }
      return claims;
    } finally {
      const back = reserved.filter((r) => !kept.has(r.scanId));
      if (back.length) await this.leases.releaseMany(back).catch(() => undefined);
    }
  }

  /**
   * The claim `worker` holds on attempt `attempt` of a scan (its lease row), with the scan's target as
   * the executor received it; null when it holds none (never claimed, reported already, or lapsed and
   * handed back): an agent's report of such an attempt is stale.
   */
  async claimHeld(scanId: number, attempt: number, worker: string): Promise<ClaimedScan | null> {
    const lease = await this.leases.get(scanId, attempt);
    if (!lease || lease.worker !== worker) return null;
    const { value: state } = await this.commands.transact(this.ctx(this.clock.now(), `scan:${scanId}`), async (unit) => (await unit.load(streams.scan(scanId), scanDecider)).state);
    if (state.status === 'new') return null;
    const target = await this.targets.scanTarget(state.target.kind, state.target.id);
    return { scanId, attempt, worker, leaseExpiresAt: lease.lease_expires_at, target: target ?? { kind: state.target.kind, id: state.target.id } };
  }

  /**
   * The claim `worker` holds on attempt `attempt` as far as a failure report needs it (its lease
   * row, no target): null when it holds none. The decider checks the attempt again when it decides.
   */
  async heldLease(scanId: number, attempt: number, worker: string): Promise<Pick<ClaimedScan, 'scanId' | 'attempt' | 'worker'> | null> {
    const lease = await this.leases.get(scanId, attempt);
    return lease && lease.worker === worker ? { scanId, attempt, worker } : null;
  }

  /** The executor's claimed, unreported, unexpired scans, counted in the database. */
  held(worker: string): Promise<number> {
    return this.leases.held(worker, this.clock.now());
  }

  /** Whether any scan is claimable now by an executor holding credentials or not. */
  async waiting(holdsCredentials: boolean): Promise<boolean> {
    return (await this.scans.claimable(this.clock.now(), 1, holdsCredentials)).length > 0;
  }

  /** What is claimable now, as a text that changes when that changes (null: nothing is); the long polls' probe. */
  claimableSignature(holdsCredentials: boolean): Promise<string | null> {
    return this.scans.signature(this.clock.now(), holdsCredentials);
  }

  // ---- lease -------------------------------------------------------------------------------

  /**
   * A heartbeat: the decider checks the claim still stands (RenewLease decides nothing), then the
   * lease row moves to now + 20 minutes unless it lapsed meanwhile. false: the lease is lost.
   */
  async renew(claim: ClaimedScan): Promise<boolean> {
    const now = this.clock.now();
    const lease = await this.leases.get(claim.scanId, claim.attempt);
    if (!lease || lease.worker !== claim.worker) return false;
    try {
      await this.commands.execute(streams.scan(claim.scanId), scanDecider,
        { type: 'RenewLease', worker: claim.worker, attempt: claim.attempt, leaseExpiresAt: lease.lease_expires_at, now }, this.ctx(now, `scan:${claim.scanId}`));
    } catch (error) {
      if (error instanceof DomainError) return false;
      throw error;
    }
    return this.leases.renew(claim.scanId, claim.attempt, claim.worker, now, leaseExpiry(now));
  }

  // ---- result ------------------------------------------------------------------------------

  /**
   * A result: each present step normalised into findings under `scanner:<step>`; the steps present
   * form the backlog scope (a step with no finding resolves its open issues, a null or missing step is
   * out of scope and resolves nothing); ScanCompleted is appended in the ingestion's commit. A result
   * the normaliser cannot read is a transient failure; a result for an attempt no longer running is
   * refused (nothing is ingested). `alongside`: decisions of the caller recorded in the same commit
   * as the result (appended only when the result is).
   */
  async complete(claim: ClaimedScan, result: ScanResult, options: { alongside?: StreamDecisions } = {}): Promise<ReportOutcome> {
    if (!this.normaliser) return this.fail(claim, new ScanFailure('transient', 'No artifact normaliser is bound: the result cannot be read.'));
    const normaliser = this.normaliser;
    const { kind: targetKind, id: targetId } = claim.target;
    const steps: Record<string, StepSummary | null> = {};
    const findings: Finding[] = [];
    const toolKeys: string[] = [];
    try {
      for (const step of SCAN_STEPS) {
        const artifact = result.artifacts?.[step];
        if (artifact === null || artifact === undefined) {
          steps[step] = null;
          continue;
        }
        const toolKey = `scanner:${step}`;
        const found = normaliser.findings(step, artifact, claim.target);
        toolKeys.push(toolKey);
        // Cut to the issues table's columns, control characters made spaces: a scanner is never refused (issue #17).
        for (const f of found) findings.push(fitFinding({ ...f, targetKind, targetId, toolKey, toolName: f.toolName ?? artifact.tool, toolVersion: f.toolVersion ?? artifact.toolVersion }));
        steps[step] = { tool: artifact.tool, toolVersion: artifact.toolVersion, findings: found.length };
      }
    } catch (error) {
      const failure = error instanceof ScanFailure ? error : new ScanFailure('transient', `The result could not be read: ${(error as Error)?.message ?? String(error)}`);
      return this.fail(claim, failure);
    }
    const sbom = result.artifacts?.sbom;
    const disallowedLicences = sbom && normaliser.disallowedLicences ? normaliser.disallowedLicences(sbom).slice(0, MAX_LICENCES_KEPT) : [];
    const now = this.clock.now();
    const ctx = this.ctx(now, `scan:${claim.scanId}`);
    const command: Omit<CompleteScan, 'outcome'> = {
      type: 'CompleteScan', worker: claim.worker, attempt: claim.attempt, now, steps, languages: result.languages ?? null,
      languagesBounded: Boolean(result.languagesBounded), duration: typeof result.duration === 'string' ? result.duration : null, disallowedLicences,
    };
    const tools = [...new Set(Object.values(steps).filter((s): s is StepSummary => s !== null).map((s) => s.tool))];
    const provenance: Provenance = { origin: 'scan', source: null, toolName: tools.join(', ') || 'scan', toolVersion: null, recordId: claim.scanId };
    const running = await this.runningAttempt(claim, ctx, command);
    if (!running) return this.discarded(claim);
    try {
      await this.backlog.ingest(ctx, { targetKind, targetId, toolKeys }, findings, provenance, (outcome, unit) => {
        // What the caller records with the result (an agent's AGENT_RESULT_SUBMITTED) commits with it or not at all.
        for (const d of options.alongside ?? []) unit.record(d.stream, d.events, d.expectedRevision);
        return { stream: streams.scan(claim.scanId), events: scanDecider.decide({ ...command, outcome }, running.state), expectedRevision: running.revision ?? 'no_stream' };
      });
    } catch (error) {
      // The scan's stream moved under the ingestion: a lapse or a failure report ended the attempt meanwhile.
      if (error instanceof WrongExpectedRevision && !(await this.runningAttempt(claim, ctx, command))) return this.discarded(claim);
      throw error;
    }
    await this.leases.release(claim.scanId, claim.attempt);
    this.queue?.changed();
    return 'completed';
  }

  /**
   * The scan's state and revision while the claim's attempt still runs (the decider would take its
   * result), else null. A unit of work that decides and records nothing: the decision is recorded by
   * the ingestion, in its own commit, with this revision.
   */
  private async runningAttempt(claim: ClaimedScan, ctx: RequestContext, command: Omit<CompleteScan, 'outcome'>): Promise<{ state: ScanState; revision: number | null } | null> {
    const { value } = await this.commands.transact(ctx, async (unit) => {
      const { state, revision } = await unit.load(streams.scan(claim.scanId), scanDecider);
      return this.decides(() => scanDecider.decide({ ...command, outcome: { created: 0, resolved: 0, reopened: 0 } }, state)) ? { state, revision } : null;
    });
    return value;
  }

  private discarded(claim: ClaimedScan): ReportOutcome {
    this.log.warn('A scan result arrived for an attempt that no longer runs; it is discarded', { scanId: claim.scanId, attempt: claim.attempt });
    return 'refused';
  }

  private decides(fn: () => unknown): boolean {
    try {
      fn();
      return true;
    } catch (error) {
      if (error instanceof DomainError) return false;
      throw error;
    }
  }

  // ---- failure -----------------------------------------------------------------------------

  /** A failure report: permanent fails the scan; transient returns it to pending after its delay while attempts are left. */
  async fail(claim: Pick<ClaimedScan, 'scanId' | 'attempt' | 'worker'>, failure: { kind: FailureKind; reason: string }): Promise<ReportOutcome> {
    const now = this.clock.now();
    const kind: FailureKind = failure.kind === 'permanent' ? 'permanent' : 'transient'; // a missing kind reads transient (§4.7)
    const outcome = await this.decideFailure(claim.scanId, this.ctx(now, `scan:${claim.scanId}`), (state) => scanDecider.decide({
      type: 'FailScan', worker: claim.worker, attempt: claim.attempt, kind, reason: failure.reason, now, retryDelaysMs: this.settings.retryDelaysMs,
    }, state));
    if (outcome !== 'refused') {
      await this.leases.release(claim.scanId, claim.attempt);
      this.queue?.changed();
    }
    return outcome;
  }

  /** One unit of work: the failure decision, and for a retry the target's waiting reservation when free, with the revisions read. */
  private async decideFailure(scanId: number, ctx: RequestContext, decide: (state: ScanState) => ScanEvent[]): Promise<ReportOutcome> {
    const { value: decided } = await this.commands.transact(ctx, async (unit) => {
      const scan = await unit.load(streams.scan(scanId), scanDecider);
      let events: ScanEvent[];
      try {
        events = decide(scan.state);
      } catch (error) {
        if (error instanceof DomainError) return null;
        throw error;
      }
      unit.record(streams.scan(scanId), events, scan.revision ?? 'no_stream');
      const first = events[0];
      if (first.type === 'ScanRetryScheduled') {
        const { targetKind, targetId } = first.data;
        const waiting = await unit.load(streams.scanWaiting(targetKind, targetId), waitingDecider);
        unit.record(streams.scanWaiting(targetKind, targetId), waitingDecider.decide({ type: 'Requeue', targetKind, targetId, scanId }, waiting.state), waiting.revision ?? 'no_stream');
      }
      return first;
    });
    if (!decided) return 'refused';
    if (decided.type === 'ScanFailed') this.log.info(`Scan ${scanId} failed (${decided.data.kind}): ${decided.data.reason}`);
    return decided.type === 'ScanRetryScheduled' ? 'retry' : 'failed';
  }

  // ---- lapses ------------------------------------------------------------------------------

  /**
   * The maintenance pass of leases: a lease lapsed 20 minutes after the last heartbeat is a transient
   * failure of its attempt (S1.3.1-19); a lease row whose claim never reached the log (an instance
   * stopped between the two) is void and removed, which spends no attempt.
   */
  async lapseExpired(): Promise<{ lapsed: number; voided: number }> {
    const now = this.clock.now();
    let lapsed = 0;
    let voided = 0;
    for (;;) {
      const rows = await this.leases.lapsed(now, LAPSE_BATCH);
      let errors = 0;
      for (const row of rows) {
        const scanId = Number(row.scan_id);
        const attempt = Number(row.attempt);
        try {
          const outcome = await this.decideFailure(scanId, this.ctx(now, 'lease-lapse'), (state) => scanDecider.decide({
            type: 'LapseLease', attempt, leaseExpiresAt: row.lease_expires_at, now, retryDelaysMs: this.settings.retryDelaysMs,
          }, state));
          if (outcome === 'refused') voided++;
          else lapsed++;
        } catch (error) {
          this.log.error('A lapsed scan lease could not be recorded; the next pass tries again', { scanId, attempt, error: (error as Error)?.stack ?? String(error) });
          errors++;
          continue;
        }
        await this.leases.release(scanId, attempt);
      }
      if (rows.length < LAPSE_BATCH || errors > 0) break;
    }
    // Scans running without a lease row (a database restored without its scan_leases, say): their lease
    // is the one ScanClaimed started, lapsed 20 minutes after the claim.
    const orphans = await this.scans.unleased(new Date(now.getTime() - LEASE_MS), LAPSE_BATCH);
    for (const orphan of orphans) {
      const outcome = await this.decideFailure(orphan.scanId, this.ctx(now, 'lease-lapse'), (state) => scanDecider.decide({
        type: 'LapseLease', attempt: orphan.attempt, leaseExpiresAt: leaseExpiry(new Date(orphan.startedAt)), now, retryDelaysMs: this.settings.retryDelaysMs,
      }, state)).catch(() => 'refused' as const);
      if (outcome !== 'refused') lapsed++;
    }
    if (lapsed) this.log.warn(`${lapsed} scan lease(s) lapsed without a heartbeat for 20 minutes`);
    return { lapsed, voided };
  }
}
