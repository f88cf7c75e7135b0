import type { Finding, Provenance } from '../../domain/backlog/issue';
import { fitFinding } from '../../domain/backlog/fit';
import { DomainError, DomainEvent } from '../../domain/shared/decider';
import { CompleteScan, FailureKind, LEASE_MS, leaseExpiry, scanDecider, ScanEvent, ScanState, StepSummary } from '../../domain/scans';
import { waitingDecider } from '../../domain/scans/waiting';
import type { TargetKind } from '../../domain/shared/target-kind';
import { Database } from '../../infrastructure/db/database';
import { BacklogService } from '../backlog/backlog-service';
import { CommandHandler, RequestContext } from '../command-handler';
import { Clock } from '../ports/clock';
import { ExpectedRevision, WrongExpectedRevision } from '../ports/event-store';
import { ArtifactNormaliser, SCAN_STEPS, ScanFailure, ScanResult, ScanTarget } from '../ports/scanning';
import { ScanLeases } from './scan-leases';
import { TARGET_NOUN } from '../../domain/shared/target-kind';
import { streams } from '../../domain/shared/streams';

/** Who claims: the built-in worker today, an agent later. Both go through this class (S1.3.1-21). */
export interface ScanExecutorIdentity {
  /** `embedded:<instance>` or `agent:<id>`. */
  readonly worker: string;
  /** Can hold a credential a scan needs (S1.3.1-05, S1.3.1-20). */
  readonly holdsCredentials: boolean;
  /** Labels it answers to (VIGIL_WORKER_LABELS); no target names one yet. */
  readonly labels: readonly string[];
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

type Append = { stream: string; events: DomainEvent[]; expectedRevision: ExpectedRevision };

/**
 * The scan lifecycle after the request (spec 1 §3.1), the same for every executor: claim, lease
 * renewal, result, failure, and the lapse of leases nobody renewed. Every decision is the Scan
 * decider's; the lease table (ScanLeases) only arbitrates who may claim and keeps the heartbeat time
 * (ADR 0006).
 *
 * Claim: candidates from the `scans` read model (pending, due, the credential rule, no scan of the
 * target running, attempt not reserved), then per candidate: decide ClaimScan on the stream, insert
 * the (scan, attempt) lease row (the atomic step: a second instance's insert fails and it moves on),
 * append ScanClaimed with the waiting reservation's release in one commit.
 */
export class ScanLifecycle {
  constructor(
    private readonly db: Database,
    private readonly commands: CommandHandler,
    private readonly backlog: BacklogService,
    private readonly leases: ScanLeases,
    private readonly clock: Clock,
    private readonly settings: { retryDelaysMs: readonly number[] },
    private readonly normaliser: ArtifactNormaliser | null,
    private readonly log: Log = quiet,
  ) {}

  get canNormalise(): boolean {
    return this.normaliser !== null;
  }

  private ctx(now: Date, correlationId: string): RequestContext {
    return { actor: null, address: null, userAgent: null, correlationId, now };
  }

  // ---- claim -------------------------------------------------------------------------------

  /** Claims up to `max` due scans for the executor, oldest due first. */
  async claim(executor: ScanExecutorIdentity, max: number): Promise<ClaimedScan[]> {
    if (max <= 0) return [];
    const now = this.clock.now();
    const knex = this.db.knex;
    const q = knex('scans as s')
      .leftJoin('scan_leases as l', (j) => { j.on('l.scan_id', '=', 's.id').andOn('l.attempt', '=', knex.raw('s.attempts + 1')); })
      .where('s.status', 'pending').where('s.not_before', '<=', now.toISOString()).whereNull('l.scan_id')
      // One scan of a target at a time: a waiting scan starts when the running one has ended.
      .whereNotExists(knex('scans as r').select(knex.raw('1')).whereRaw('r.target_kind = s.target_kind AND r.target_id = s.target_id').where('r.status', 'scanning'))
      .orderBy([{ column: 's.not_before' }, { column: 's.id' }]).limit(max * 4 + 4).select('s.id');
    if (!executor.holdsCredentials) {
      q.where('s.requires_credential', false)
        // A repository that came to name a credential after its scan was requested needs one all the same.
        .whereNotExists(knex('repositories as c').select(knex.raw('1')).whereRaw("s.target_kind = 'repository' AND c.id = s.target_id").whereNotNull('c.credential_id'));
    }
    const candidates: Array<{ id: number }> = await q;
    const claimed: ClaimedScan[] = [];
    for (const candidate of candidates) {
      if (claimed.length >= max) break;
      const claim = await this.tryClaim(Number(candidate.id), executor, now);
      if (claim) claimed.push(claim);
    }
    return claimed;
  }

  private async tryClaim(scanId: number, executor: ScanExecutorIdentity, now: Date): Promise<ClaimedScan | null> {
    const ctx = this.ctx(now, `claim:${executor.worker}`);
    let reserved: { attempt: number; leaseExpiresAt: string } | null = null;
    try {
      for (let round = 0; round < 5; round++) {
        const scan = await this.commands.load(streams.scan(scanId), scanDecider);
        let events: ScanEvent[];
        try {
          events = scanDecider.decide({ type: 'ClaimScan', worker: executor.worker, holdsCredentials: executor.holdsCredentials, now }, scan.state);
        } catch (error) {
          if (error instanceof DomainError) return null; // no longer pending, not due, or needs a credential
          throw error;
        }
        const claimedEvent = events[0];
        if (claimedEvent.type !== 'ScanClaimed') throw new Error('ClaimScan decided something else than ScanClaimed');
        const { attempt, leaseExpiresAt, targetKind, targetId } = claimedEvent.data;
        if (!reserved) {
          if (!(await this.leases.reserve(scanId, attempt, executor.worker, now, leaseExpiresAt))) return null; // another executor was first
          reserved = { attempt, leaseExpiresAt };
        } else if (reserved.attempt !== attempt) {
          return null;
        }
        const waiting = await this.commands.load(streams.scanWaiting(targetKind, targetId), waitingDecider);
        const released = waitingDecider.decide({ type: 'Release', targetKind, targetId, scanId }, waiting.state);
        try {
          await this.commands.appendAll([
            { stream: streams.scan(scanId), events, expectedRevision: scan.revision ?? 'no_stream' },
            { stream: streams.scanWaiting(targetKind, targetId), events: released, expectedRevision: waiting.revision ?? 'no_stream' },
          ], ctx);
        } catch (error) {
          if (error instanceof WrongExpectedRevision) continue; // a request on the target meanwhile: read both again
          throw error;
        }
        const target = await this.scanTarget(targetKind, targetId);
        const claim: ClaimedScan = {
          scanId, attempt, worker: executor.worker, leaseExpiresAt, target: target ?? { kind: targetKind, id: targetId },
        };
        reserved = null; // the claim stands: the row lives until the attempt ends
        if (!target) {
          await this.fail(claim, new ScanFailure('permanent', `The ${TARGET_NOUN[targetKind]} ${targetId} no longer exists.`));
          return null;
        }
        return claim;
      }
      return null;
    } finally {
      if (reserved) await this.leases.release(scanId, reserved.attempt).catch(() => undefined);
    }
  }

  /** What the executor needs of the target, from the targets read model; null when it was deleted. */
  private async scanTarget(kind: TargetKind, id: number): Promise<ScanTarget | null> {
    if (kind === 'repository') {
      const row = await this.db.knex('repositories').where({ id }).select('url', 'branch', 'sub_path').first();
      return row ? { kind, id, url: row.url, branch: row.branch, subPath: row.sub_path } : null;
    }
    const row = await this.db.knex('containers').where({ id }).select('image').first();
    return row ? { kind, id, image: row.image } : null;
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
    const { state } = await this.commands.load(streams.scan(claim.scanId), scanDecider);
    try {
      scanDecider.decide({ type: 'RenewLease', worker: claim.worker, attempt: claim.attempt, leaseExpiresAt: lease.lease_expires_at, now }, state);
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
   * refused (nothing is ingested).
   */
  async complete(claim: ClaimedScan, result: ScanResult): Promise<ReportOutcome> {
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
    for (let round = 0; ; round++) {
      const { state, revision } = await this.commands.load(streams.scan(claim.scanId), scanDecider);
      if (!this.decides(() => scanDecider.decide({ ...command, outcome: { created: 0, resolved: 0, reopened: 0 } }, state))) {
        this.log.warn('A scan result arrived for an attempt that no longer runs; it is discarded', { scanId: claim.scanId, attempt: claim.attempt });
        return 'refused';
      }
      try {
        await this.backlog.ingest(ctx, { targetKind, targetId, toolKeys }, findings, provenance, (outcome) => ({
          stream: streams.scan(claim.scanId), events: scanDecider.decide({ ...command, outcome }, state), expectedRevision: revision ?? 'no_stream',
        }));
        await this.leases.release(claim.scanId, claim.attempt);
        return 'completed';
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision) || round >= 3) throw error;
      }
    }
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
  async fail(claim: ClaimedScan, failure: { kind: FailureKind; reason: string }): Promise<ReportOutcome> {
    const now = this.clock.now();
    const kind: FailureKind = failure.kind === 'permanent' ? 'permanent' : 'transient'; // a missing kind reads transient (§4.7)
    const outcome = await this.decideFailure(claim.scanId, this.ctx(now, `scan:${claim.scanId}`), (state) => scanDecider.decide({
      type: 'FailScan', worker: claim.worker, attempt: claim.attempt, kind, reason: failure.reason, now, retryDelaysMs: this.settings.retryDelaysMs,
    }, state));
    if (outcome !== 'refused') await this.leases.release(claim.scanId, claim.attempt);
    return outcome;
  }

  /** Appends a failure decision (and, for a retry, the target's waiting reservation when free) with the revisions read. */
  private async decideFailure(scanId: number, ctx: RequestContext, decide: (state: ScanState) => ScanEvent[]): Promise<ReportOutcome> {
    for (let round = 0; ; round++) {
      const scan = await this.commands.load(streams.scan(scanId), scanDecider);
      let events: ScanEvent[];
      try {
        events = decide(scan.state);
      } catch (error) {
        if (error instanceof DomainError) return 'refused';
        throw error;
      }
      const appends: Append[] = [{ stream: streams.scan(scanId), events, expectedRevision: scan.revision ?? 'no_stream' }];
      const decided = events[0];
      if (decided.type === 'ScanRetryScheduled') {
        const { targetKind, targetId } = decided.data;
        const waiting = await this.commands.load(streams.scanWaiting(targetKind, targetId), waitingDecider);
        appends.push({
          stream: streams.scanWaiting(targetKind, targetId), expectedRevision: waiting.revision ?? 'no_stream',
          events: waitingDecider.decide({ type: 'Requeue', targetKind, targetId, scanId }, waiting.state),
        });
      }
      try {
        await this.commands.appendAll(appends, ctx);
        if (decided.type === 'ScanFailed') this.log.info(`Scan ${scanId} failed (${decided.data.kind}): ${decided.data.reason}`);
        return decided.type === 'ScanRetryScheduled' ? 'retry' : 'failed';
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision) || round >= 4) throw error;
      }
    }
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
    const knex = this.db.knex;
    const orphans: Array<{ id: number; attempts: number; started_at: string }> = await knex('scans as s').where('s.status', 'scanning')
      .where('s.started_at', '<=', new Date(now.getTime() - LEASE_MS).toISOString())
      .whereNotExists(knex('scan_leases as l').select(knex.raw('1')).whereRaw('l.scan_id = s.id AND l.attempt = s.attempts'))
      .select('s.id', 's.attempts', 's.started_at').limit(LAPSE_BATCH);
    for (const orphan of orphans) {
      const attempt = Number(orphan.attempts);
      const outcome = await this.decideFailure(Number(orphan.id), this.ctx(now, 'lease-lapse'), (state) => scanDecider.decide({
        type: 'LapseLease', attempt, leaseExpiresAt: leaseExpiry(new Date(orphan.started_at)), now, retryDelaysMs: this.settings.retryDelaysMs,
      }, state)).catch(() => 'refused' as const);
      if (outcome !== 'refused') lapsed++;
    }
    if (lapsed) this.log.warn(`${lapsed} scan lease(s) lapsed without a heartbeat for 20 minutes`);
    return { lapsed, voided };
  }
}
