import { Clock } from '../ports/clock';
import { CloneCredential, ScanExecutor, ScanFailure, ScanJob, ScanTarget } from '../ports/scanning';
import { ClaimedScan, ReportOutcome, ScanExecutorIdentity, ScanLifecycle } from './scan-lifecycle';

interface Log {
  info(message: string, meta?: unknown): void;
  warn(message: string, meta?: unknown): void;
  error(message: string, meta?: unknown): void;
}

export interface ScanWorkerOptions {
  /** VIGIL_EMBEDDED_WORKER. */
  enabled: boolean;
  /** VIGIL_SCAN_MAX_CONCURRENT. */
  maxConcurrent: number;
  /** VIGIL_WORKER_INTERVAL. */
  intervalMs: number;
  /** VIGIL_WORKER_LABELS. */
  labels: readonly string[];
  /** This instance's name in claims: `embedded:<host>:<pid>:<random>`. */
  workerId: string;
  /** The built-in worker runs inside the control plane, which holds the credentials it stores (when ENCRYPTION_KEY is set). */
  holdsCredentials?: boolean;
  /** Unseals the credential a claimed target names (application/credentials/clone-credentials.ts). */
  credentials?: { forTarget(target: ScanTarget): Promise<CloneCredential | undefined> };
  /** Heartbeats closer together than this do not touch the lease row (spec 1 §2.7: at most every 15 seconds). */
  renewEveryMs?: number;
}

export type RunOutcome = ReportOutcome | 'lost' | 'stopped';

/** Defence in depth: whatever an executor says, the secret it was handed never reaches a scan's reason (an event). */
function withoutSecret(reason: string, credential: CloneCredential | undefined): string {
  const secret = credential?.kind === 'https_token' ? credential.token : credential?.kind === 'ssh_key' ? credential.privateKey.trim() : '';
  if (!secret) return reason;
  const parts = credential?.kind === 'https_token'
    ? [secret, encodeURIComponent(secret), Buffer.from(`${credential.username}:${secret}`, 'utf8').toString('base64')]
    : [secret, ...secret.split('\n').filter((l) => l.length >= 16 && !l.startsWith('-----'))];
  return parts.reduce((text, part) => text.split(part).join('***'), reason);
}

/** The abort reason of runs stopped with the server. */
const STOPPING = new Error('Vigil is stopping');

/** Heartbeats are written at most every 15 seconds (spec 1 §2.7 for agents; the same here). */
const RENEW_EVERY_MS = 15_000;

/**
 * The built-in worker (spec 1 §8.3 VIGIL_EMBEDDED_WORKER): every VIGIL_WORKER_INTERVAL it claims due
 * scans up to VIGIL_SCAN_MAX_CONCURRENT through the same ScanLifecycle an agent will use (S1.3.1-21),
 * runs each with the bound ScanExecutor (workspaces are the executor's business), renews the lease on
 * the executor's heartbeats, and reports the result or the ScanFailure. Without an executor or a
 * normaliser it stays off and says so.
 */
export class ScanWorker {
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<unknown> | null = null;
  private readonly running = new Map<number, { controller: AbortController; done: Promise<RunOutcome> }>();

  constructor(
    private readonly lifecycle: ScanLifecycle,
    private readonly executor: ScanExecutor | null,
    private readonly clock: Clock,
    private readonly log: Log,
    readonly options: ScanWorkerOptions,
  ) {}

  /** Why the worker cannot run, or null when it can. */
  get unavailableBecause(): string | null {
    if (!this.options.enabled) return 'VIGIL_EMBEDDED_WORKER is false: no built-in worker runs (agents may claim scans).';
    if (!this.executor) return 'No scan executor is bound (infrastructure/scanning): the built-in worker stays off and scans wait for an agent.';
    if (!this.lifecycle.canNormalise) return 'No artifact normaliser is bound (infrastructure/scanning): the built-in worker stays off and scans wait for an agent.';
    return null;
  }

  get identity(): ScanExecutorIdentity {
    return { worker: this.options.workerId, holdsCredentials: this.options.holdsCredentials ?? true, labels: this.options.labels };
  }

  get runningCount(): number {
    return this.running.size;
  }

  /** Claims what fits and starts it; answers the runs started (the timer does not wait for them). */
  async tick(): Promise<Array<Promise<RunOutcome>>> {
    if (this.unavailableBecause) return [];
    const free = this.options.maxConcurrent - this.running.size;
    if (free <= 0) return [];
    const claims = await this.lifecycle.claim(this.identity, free);
    const prepared = await Promise.all(claims.map((claim) => this.withCredential(claim)));
    return prepared.map((p) => ('failed' in p ? p.failed : this.launch(p.claim, p.credential)));
  }

  /**
   * The credential the claimed target names, unsealed for this run only: it lives in the job (never
   * in the claim, an event or a log line). Unusable (removed, or no configured key opens it): the scan
   * fails permanently before the executor runs (S1.3.1-14).
   */
  private async withCredential(claim: ClaimedScan): Promise<{ claim: ClaimedScan; credential?: CloneCredential } | { failed: Promise<RunOutcome> }> {
    try {
      return { claim, credential: await this.options.credentials?.forTarget(claim.target) };
    } catch (error) {
      const failure = error instanceof ScanFailure ? error : new ScanFailure('transient', `The clone credential could not be read: ${(error as Error)?.message ?? String(error)}`);
      const failed = this.lifecycle.fail(claim, failure).catch((e) => {
        this.log.error('A scan outcome could not be recorded; its lease will lapse', { scanId: claim.scanId, error: (e as Error)?.stack ?? String(e) });
        return 'lost' as const;
      });
      return { failed };
    }
  }

  /** One tick, then waits for the scans it started (specs). */
  async runOnce(): Promise<RunOutcome[]> {
    return Promise.all(await this.tick());
  }

  private launch(claim: ClaimedScan, credential?: CloneCredential): Promise<RunOutcome> {
    const controller = new AbortController();
    const done = this.run(claim, controller, credential).finally(() => this.running.delete(claim.scanId));
    this.running.set(claim.scanId, { controller, done });
    return done;
  }

  private async run(claim: ClaimedScan, controller: AbortController, credential?: CloneCredential): Promise<RunOutcome> {
    const job: ScanJob = { scanId: claim.scanId, attempt: claim.attempt, target: credential ? { ...claim.target, credential } : claim.target };
    const every = this.options.renewEveryMs ?? RENEW_EVERY_MS;
    let lastRenewal = this.clock.now().getTime();
    let lost = false;
    const heartbeat = async () => {
      if (lost || controller.signal.aborted) return;
      const now = this.clock.now().getTime();
      if (now - lastRenewal < every) return;
      lastRenewal = now;
      try {
        if (!(await this.lifecycle.renew(claim))) {
          lost = true;
          this.log.warn('The lease of a running scan was lost (lapsed or taken over); the scan is abandoned here', { scanId: claim.scanId, attempt: claim.attempt });
          controller.abort(new Error('scan lease lost'));
        }
      } catch (error) {
        this.log.error('A lease renewal failed; the next heartbeat tries again', { scanId: claim.scanId, error: (error as Error)?.stack ?? String(error) });
      }
    };
    try {
      let result;
      try {
        result = await this.executor!.run(job, heartbeat, controller.signal);
      } catch (error) {
        if (lost) return 'lost';
        if (controller.signal.aborted && controller.signal.reason === STOPPING) {
          await this.lifecycle.fail(claim, new ScanFailure('transient', 'Vigil stopped while the scan ran.'));
          return 'stopped';
        }
        const failure = error instanceof ScanFailure ? error : new ScanFailure('transient', `unclassified: ${(error as Error)?.message ?? String(error)}`);
        return await this.lifecycle.fail(claim, { kind: failure.kind, reason: withoutSecret(failure.reason, credential) });
      }
      if (lost) return 'lost';
      try {
        return await this.lifecycle.complete(claim, result);
      } catch (error) {
        this.log.error('A scan result could not be recorded', { scanId: claim.scanId, error: (error as Error)?.stack ?? String(error) });
        return await this.lifecycle.fail(claim, new ScanFailure('transient', `The result could not be recorded: ${(error as Error)?.message ?? String(error)}`));
      }
    } catch (error) {
      // Recording failed too: the lease lapses in 20 minutes and the maintenance pass retries the scan.
      this.log.error('A scan outcome could not be recorded; its lease will lapse', { scanId: claim.scanId, error: (error as Error)?.stack ?? String(error) });
      return 'lost';
    }
  }

  /** Claims every VIGIL_WORKER_INTERVAL; off (with a log line) when unavailable. */
  start(): boolean {
    if (this.timer) return true;
    const reason = this.unavailableBecause;
    if (reason) {
      this.log.info(reason);
      return false;
    }
    const tick = () => {
      if (this.ticking) return;
      this.ticking = this.tick()
        .catch((error) => this.log.error('Claiming scans failed; the next interval tries again', { error: (error as Error)?.stack ?? String(error) }))
        .finally(() => { this.ticking = null; });
    };
    this.timer = setInterval(tick, Math.max(250, this.options.intervalMs));
    this.timer.unref?.();
    tick();
    this.log.info(`Built-in scan worker on: up to ${this.options.maxConcurrent} scan(s) at once, claims every ${this.options.intervalMs} ms`);
    return true;
  }

  /**
   * Stops claiming; running scans are aborted and recorded as a transient failure (their attempt is
   * counted and they are retried after the delay). Waits at most `graceMs` for them.
   */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    const runs = [...this.running.values()];
    for (const r of runs) r.controller.abort(STOPPING);
    await Promise.race([Promise.allSettled(runs.map((r) => r.done)), new Promise((resolve) => setTimeout(resolve, graceMs).unref?.())]);
  }
}
