import { IntervalLoop } from '../shared/interval-loop';
import { decideSchedulingRound } from '../../domain/targets';
import { Clock } from '../ports/clock';
import { InstanceLease, SchedulingReads, SettingsReader } from './ports';
import { ScanLifecycle } from './scan-lifecycle';
import { ScanService } from './scan-service';

interface Log {
  info(message: string, meta?: unknown): void;
  error(message: string, meta?: unknown): void;
}

export interface RoundReport {
  /** false: another instance holds the scheduler's lease; nothing was done. */
  ran: boolean;
  due: number;
  requested: number;
  /** Due targets whose request was refused (a scan started waiting meanwhile). */
  refused: number;
  lapsed: number;
}

/**
 * The scheduler (spec 1 §2.1, VIGIL_SCHEDULER_INTERVAL): each round first lapses expired scan leases
 * (S1.3.1-19), then reads every schedulable target in one query and the targets with a scan pending
 * or running in another, lets decideSchedulingRound pick the due ones (precedence manual-only, cron,
 * own interval, installation default scan_default_interval_days; busy targets skipped, S1.2.1-32),
 * and requests their scans with trigger `schedule` in batched commits, each recording ScanScheduled
 * (the target's lastScheduledScanAt).
 *
 * Two instances: an instance lease (InstanceLease, name `scan-scheduler`) lets one instance run the
 * rounds; the other takes over when the holder stops or its lease lapses. Even two rounds at once
 * would request each target once: the request's waiting reservation refuses the second.
 */
export class ScanScheduler {
  private readonly loop = new IntervalLoop(
    () => this.runOnce(),
    (error) => this.log.error('A scheduling round failed; the next interval tries again', { error: (error as Error)?.stack ?? String(error) }),
  );

  constructor(
    private readonly reads: SchedulingReads,
    private readonly scans: ScanService,
    private readonly lifecycle: ScanLifecycle,
    private readonly settings: SettingsReader,
    private readonly clock: Clock,
    private readonly lease: InstanceLease,
    private readonly log: Log,
    private readonly options: { intervalMs: number },
  ) {}

  /** How long the holder keeps the rounds without taking its lease again. */
  private get leaseMs(): number {
    return Math.max(2 * this.options.intervalMs, 120_000);
  }

  async runOnce(): Promise<RoundReport> {
    const now = this.clock.now();
    if (!(await this.lease.acquire(now, this.leaseMs))) return { ran: false, due: 0, requested: 0, refused: 0, lapsed: 0 };
    const { lapsed } = await this.lifecycle.lapseExpired();
    const defaultIntervalDays = Number(await this.settings.get('scan_default_interval_days') ?? 0);
    const [targets, busy] = await Promise.all([this.reads.candidates(), this.reads.busy()]);
    const due = decideSchedulingRound(targets, now, { defaultIntervalDays }, busy);
    const outcomes = due.length
      ? await this.scans.requestScans({ actor: null, address: null, userAgent: null, correlationId: 'scan-scheduler', now }, due.map((d) => ({ kind: d.kind, id: d.id })), 'schedule', { requestedBy: null, scheduledAt: now })
      : [];
    const requested = outcomes.filter((o) => 'scanId' in o).length;
    if (requested) this.log.info(`Scheduled ${requested} scan(s)`);
    return { ran: true, due: due.length, requested, refused: outcomes.length - requested, lapsed };
  }

  /** Runs now, then every interval; a round still going when the next is due is not doubled. */
  start(): void {
    this.loop.start(this.options.intervalMs);
  }

  /** Stops the rounds, waits for one in progress and gives the lease up for another instance. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.lease.release().catch(() => undefined);
  }
}
