import { IntervalLoop } from '../shared/interval-loop';
import { decideSchedulingRound, SchedulingCandidate, TargetRef, targetRef } from '../../domain/targets';
import { Database } from '../../infrastructure/db/database';
import { Clock } from '../ports/clock';
import { SettingsService } from '../settings/settings-service';
import { BackgroundLease } from './scan-leases';
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

interface TargetRow {
  kind: 'repository' | 'container';
  id: number;
  scan_manual_only: boolean | number;
  scan_interval_minutes: number | null;
  scan_cron: string | null;
  created_at: string;
  last_scheduled_scan_at: string | null;
}

/**
 * The scheduler (spec 1 §2.1, VIGIL_SCHEDULER_INTERVAL): each round first lapses expired scan leases
 * (S1.3.1-19), then reads every schedulable target in one query and the targets with a scan pending
 * or running in another, lets decideSchedulingRound pick the due ones (precedence manual-only, cron,
 * own interval, installation default scan_default_interval_days; busy targets skipped, S1.2.1-32),
 * and requests their scans with trigger `schedule` in batched commits, each recording ScanScheduled
 * (the target's lastScheduledScanAt).
 *
 * Two instances: a lease row (`background_leases`, name `scan-scheduler`) lets one instance run the
 * rounds; the other takes over when the holder stops or its lease lapses. Even two rounds at once
 * would request each target once: the request's waiting reservation refuses the second.
 */
export class ScanScheduler {
  private readonly loop = new IntervalLoop(
    () => this.runOnce(),
    (error) => this.log.error('A scheduling round failed; the next interval tries again', { error: (error as Error)?.stack ?? String(error) }),
  );

  constructor(
    private readonly db: Database,
    private readonly scans: ScanService,
    private readonly lifecycle: ScanLifecycle,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly lease: BackgroundLease,
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
    const defaultIntervalDays = Number(await this.settings.get<number>('scan_default_interval_days') ?? 0);
    const [targets, busy] = await Promise.all([this.candidates(), this.busy()]);
    const due = decideSchedulingRound(targets, now, { defaultIntervalDays }, busy);
    const outcomes = due.length
      ? await this.scans.requestScans({ actor: null, address: null, userAgent: null, correlationId: 'scan-scheduler', now }, due.map((d) => ({ kind: d.kind, id: d.id })), 'schedule', { requestedBy: null, scheduledAt: now })
      : [];
    const requested = outcomes.filter((o) => 'scanId' in o).length;
    if (requested) this.log.info(`Scheduled ${requested} scan(s)`);
    return { ran: true, due: due.length, requested, refused: outcomes.length - requested, lapsed };
  }

  /** Every target that is not manual-only, both kinds, in one query. */
  private async candidates(): Promise<SchedulingCandidate[]> {
    const knex = this.db.knex;
    const columns = ['id', 'scan_manual_only', 'scan_interval_minutes', 'scan_cron', 'created_at', 'last_scheduled_scan_at'];
    const rows: TargetRow[] = await knex.select(knex.raw("'repository' as kind"), ...columns).from('repositories').where('scan_manual_only', false)
      .unionAll((u) => { u.select(knex.raw("'container' as kind"), ...columns).from('containers').where('scan_manual_only', false); }, true);
    return rows.map((r) => ({
      kind: r.kind, id: Number(r.id), scanManualOnly: Boolean(r.scan_manual_only),
      scanIntervalMinutes: r.scan_interval_minutes === null ? null : Number(r.scan_interval_minutes), scanCron: r.scan_cron,
      registeredAt: r.created_at, lastScheduledScanAt: r.last_scheduled_scan_at,
    }));
  }

  /** Targets with a scan pending or running, in one query. */
  private async busy(): Promise<Set<TargetRef>> {
    const rows: Array<{ target_kind: 'repository' | 'container'; target_id: number }> = await this.db.knex('scans')
      .whereIn('status', ['pending', 'scanning']).distinct('target_kind', 'target_id');
    return new Set(rows.map((r) => targetRef(r.target_kind, Number(r.target_id))));
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
