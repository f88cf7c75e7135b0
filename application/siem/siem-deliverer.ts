import type { Logger } from 'winston';
import { formatCef } from '../../domain/siem/cef';
import { passesMinimum } from '../../domain/siem/signatures';
import { Clock } from '../ports/clock';
import type { InstanceLease } from '../scans/ports';
import { IntervalLoop } from '../shared/interval-loop';
import { SettingsReader } from '../settings/ports';
import { Destination, Outbox, OutgoingMessage, QueuedSignal, SiemSecrets, SiemTransport, StoredSiemConfig } from './ports';

export interface DelivererOptions {
  version: string;
  /** Delay before attempt 2, 3, ... 8: eight attempts over about four hours (spec 2 §3.6). */
  retryDelaysMs: readonly number[];
  /** How often the outbox is drained (spec 2 §8: 60 s by default). */
  intervalMs: number;
  batchSize: number;
  /**
   * VIGIL_SIEM_BATCH_PAUSE: the wait between two batches while this process is busy with other work
   * (`busy`), so that draining an outage backlog leaves imports and the gate their pace; idle, the
   * next batch follows at once.
   */
  batchPauseMs: number;
  /** Whether the process did foreground work lately (application/shared/activity-window.ts). */
  busy?: () => boolean;
}

/**
 * The deliverer's lease, renewed before each batch (a batch is bounded by the connection timeout):
 * short, so that an instance killed with SIGKILL holds up delivery for half a minute at most.
 */
export const LEASE_MS = 30_000;

/**
 * While the process is busy, a batch is followed by a wait of at least nineteen times its own
 * duration (the drain keeps a twentieth of the time), and is at most BUSY_BATCH_ROWS rows. A tenth
 * measured +12 % on imports and the gate beside the drain on a quiet machine (bench:siem, bound
 * +10 %): a whole batch of 1,000 (~80 ms) landing inside one import of 600 ms costs that import the
 * batch, so the batches are also made small, each import meeting several short ones instead of
 * one long one now and then.
 */
export const BUSY_PAUSE_FACTOR = 19;
export const BUSY_BATCH_ROWS = 200;

/** From a commit's wake to the turn it asks for: the commits of that second leave together. */
export const WAKE_DELAY_MS = 1000;

export interface DrainSummary { delivered: number; retrying: number; failed: number; abandoned: number; belowMinimum: number }

/**
 * Drains the SIEM outbox after commit (spec 2 §6): one instance at a time (lease `siem-deliverer`),
 * at least once: a row is marked delivered only after the collector took it, so a crash between the
 * two sends it again with the same externalId. The destination is read when the rows leave
 * (S2.6-06); with the export switched off, or switched on again since a row was queued, the row is
 * abandoned (S2.6-07); rows under the minimum severity are not sent (S2.6-11..15). A failed sending
 * is tried again after the next delay; the eighth failure marks it failed, visible at GET /siem/outbox.
 */
export class SiemDeliverer {
  private readonly loop = new IntervalLoop(
    (run) => this.turn(run.woken),
    (error) => this.log.error('SIEM delivery turn failed; the next turn tries again', { error: (error as Error)?.stack ?? String(error) }),
    // VIGIL_SIEM_INTERVAL is refused at 0 when read; a short one (tests) is taken as given.
    // Commits wake it; a second between a wake and its turn makes a burst of commits one turn.
    { minimumIntervalMs: 0, wakeDelayMs: WAKE_DELAY_MS },
  );
  /**
   * The outbox position this process has read and handled up to. A turn woken by a commit reads the
   * rows after it only; the others (at start, then at least every VIGIL_SIEM_INTERVAL) start from
   * the lowest row never tried, which finds a row a late commit queued below it.
   */
  private handledTo = 0;
  private lastFullScan = Number.NEGATIVE_INFINITY;
  /** The last turn's collector refused a sending: wakes wait for the interval (no connection per commit during an outage). */
  private collectorFailing = false;
  /** Set by stop(): a turn ends after its current batch instead of draining on. */
  private stopping = false;

  constructor(
    private readonly outbox: Outbox,
    private readonly transport: SiemTransport,
    private readonly secrets: SiemSecrets,
    private readonly settings: SettingsReader,
    private readonly clock: Clock,
    private readonly lease: InstanceLease,
    private readonly log: Logger,
    private readonly options: DelivererOptions,
  ) {}

  get maxAttempts(): number { return this.options.retryDelaysMs.length + 1; }

  /** Drains now, then every VIGIL_SIEM_INTERVAL, and whenever woken. */
  start(): void {
    this.stopping = false;
    this.loop.start(this.options.intervalMs);
  }

  /**
   * Rows were queued in this process (the outbox projection committed): drain soon instead of at the
   * next interval. Ignored before start, and while the collector is failing (retries keep their delays).
   * Rows queued by another instance wait for the interval.
   */
  wake(): void {
    if (!this.collectorFailing) this.loop.wake();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop.stop();
    await this.lease.release().catch(() => undefined);
  }

  private async turn(woken: boolean): Promise<void> {
    const full = !woken || performance.now() - this.lastFullScan >= this.options.intervalMs;
    if (full) this.lastFullScan = performance.now();
    const summary = await this.drain(full ? undefined : this.handledTo);
    this.collectorFailing = summary.retrying + summary.failed > 0;
  }

  /** One turn: every due row, batch after batch, until none is due or the collector fails. */
  async drain(after?: number): Promise<DrainSummary> {
    const summary: DrainSummary = { delivered: 0, retrying: 0, failed: 0, abandoned: 0, belowMinimum: 0 };
    const now = this.clock.now();
    if (!(await this.lease.acquire(now, LEASE_MS))) return summary;
    const config = await this.outbox.config();
    if (!config) return summary;
    let destination: Destination | null = null;
    // Retries first, then rows never tried, after a watermark (so delivered rows are not read again in this turn).
    let retries = true;
    let watermark = after ?? await this.outbox.untriedFloor();
    let batchStart = performance.now();
    for (let batch = 0; ; batch += 1) {
      if (batch > 0 && !(await this.between(performance.now() - batchStart))) return summary;
      batchStart = performance.now();
      const size = this.options.busy?.() ? Math.min(BUSY_BATCH_ROWS, this.options.batchSize) : this.options.batchSize;
      let rows: QueuedSignal[] = retries ? await this.outbox.retriesDue(now, size) : [];
      if (rows.length === 0) {
        retries = false;
        const fresh = await this.outbox.fresh(watermark, size);
        if (fresh.scannedTo === null) return summary;
        watermark = fresh.scannedTo;
        // Every row read is marked below, or the turn throws before this batch counts.
        this.handledTo = Math.max(this.handledTo, watermark);
        rows = fresh.rows;
        if (rows.length === 0) continue;
      }
      const stale = rows.filter((r) => !config.enabled || r.generation !== config.generation);
      const below = rows.filter((r) => !stale.includes(r) && !passesMinimum(r.severity, config.minimumSeverity));
      const sending = rows.filter((r) => !stale.includes(r) && !below.includes(r));
      await this.outbox.mark(stale, 'abandoned', now);
      await this.outbox.mark(below, 'below_minimum', now);
      summary.abandoned += stale.length;
      summary.belowMinimum += below.length;
      if (sending.length === 0) continue;
      // Held batch by batch: an instance killed mid-turn lets another take over within LEASE_MS.
      if (!(await this.lease.acquire(this.clock.now(), LEASE_MS))) return summary;
      destination ??= await this.destination(config);
      try {
        await this.transport.send(destination, sending.map((r) => this.message(r)));
      } catch (error) {
        const message = (error as Error).message.slice(0, 1000);
        await this.failed(sending, message, now, summary, destination);
        this.log.warn(`SIEM delivery to ${destination.endpoint} failed: ${message}`);
        return summary;
      }
      await this.outbox.mark(sending.map((r) => ({ ...r, attempts: r.attempts + 1 })), 'delivered', now, { destination: destination.endpoint });
      summary.delivered += sending.length;
    }
  }

  /**
   * Between two batches: the event loop's other callbacks run first (an import's, the gate's), and
   * while the process is busy the drain waits VIGIL_SIEM_BATCH_PAUSE, and at least BUSY_PAUSE_FACTOR
   * times what the batch took, so that it keeps at most a twentieth of the time whatever the
   * machine's load makes a batch cost. False when stopping.
   */
  private async between(batchMs: number): Promise<boolean> {
    if (this.stopping) return false;
    const pause = this.options.busy?.() ? Math.max(this.options.batchPauseMs, BUSY_PAUSE_FACTOR * batchMs) : 0;
    await new Promise((resolve) => (pause > 0 ? setTimeout(resolve, pause) : setImmediate(resolve)));
    return !this.stopping;
  }

  private async failed(rows: QueuedSignal[], error: string, now: Date, summary: DrainSummary, d: Destination): Promise<void> {
    const next = rows.map((r) => ({ ...r, attempts: r.attempts + 1 }));
    const exhausted = next.filter((r) => r.attempts >= this.maxAttempts);
    const again = next.filter((r) => r.attempts < this.maxAttempts);
    await this.outbox.mark(exhausted, 'failed', now, { error, destination: d.endpoint });
    // Rows of one batch share their attempt count in practice; each keeps its own delay all the same.
    for (const attempts of new Set(again.map((r) => r.attempts))) {
      const delay = this.options.retryDelaysMs[attempts - 1];
      await this.outbox.mark(again.filter((r) => r.attempts === attempts), 'retrying', now, { error, destination: d.endpoint, nextAttemptAt: new Date(now.getTime() + delay) });
    }
    summary.failed += exhausted.length;
    summary.retrying += again.length;
  }

  message(r: QueuedSignal): OutgoingMessage {
    return { signature: r.signature, severity: r.severity, at: r.rt, cef: formatCef(r, this.options.version) };
  }

  async destination(config: StoredSiemConfig): Promise<Destination> {
    const settings = await this.settings.all();
    return {
      protocol: config.protocol, endpoint: config.endpoint, tlsCaPem: config.tlsCaPem,
      authorization: config.protocol === 'webhook' && config.authorizationSet ? await this.secrets.authorization() : null,
      allowPrivate: settings.siem_allow_private_destination === true,
    };
  }
}
