export interface IntervalLoopOptions {
  /**
   * The shortest interval `start` accepts (default 1 s: a mistyped setting must not spin a
   * scheduler against the database). Loops woken by a signal and bounded by their own work may
   * lower it.
   */
  minimumIntervalMs?: number;
  /**
   * How long after a wake the task runs (default 0): wakes within that time are one run, so a
   * signal sent per commit costs at most one run per delay.
   */
  wakeDelayMs?: number;
}

/** What started a run: the timer (at start, then every interval) or a wake. */
export interface LoopRun { woken: boolean }

/**
 * Runs a task now, then again `interval` after each run ends (setTimeout chained, so a run still
 * going is never doubled and a slow run does not queue runs behind it); a failed run is logged and
 * tried again at the next interval. `wake()` runs it soon: after `wakeDelayMs` when idle, that long
 * after the current run otherwise (several wakes meanwhile give one more run). Every
 * background loop shares it: schedulers, maintenance, the SIEM deliverer and the audit mirror.
 */
export class IntervalLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = true;
  private again = false;
  private intervalMs = 0;
  private dueAt = 0;
  private dueWoken = false;

  constructor(
    private readonly task: (run: LoopRun) => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
    private readonly options: IntervalLoopOptions = {},
  ) {}

  get started(): boolean { return !this.stopped; }

  start(intervalMs: number): void {
    if (!this.stopped) return;
    this.stopped = false;
    // setTimeout takes at most 2^31 - 1 ms (about 24.8 days); longer would fire at once.
    this.intervalMs = Math.min(2_147_483_647, Math.max(this.options.minimumIntervalMs ?? 1000, intervalMs));
    this.schedule(0, false);
  }

  /** Runs the task soon: after `wakeDelayMs`, or after the run in progress (not before start, nor after stop). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    const delay = this.options.wakeDelayMs ?? 0;
    if (this.timer && this.dueAt <= Date.now() + delay) return; // already due as soon
    this.schedule(delay, true);
  }

  /** Stops the loop and waits for a run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(ms: number, woken: boolean): void {
    if (this.timer) clearTimeout(this.timer);
    this.dueAt = Date.now() + ms;
    this.dueWoken = woken;
    this.timer = setTimeout(() => this.run(), ms);
    // A background loop never keeps the process alive on its own (the server's socket does).
    this.timer.unref?.();
  }

  private run(): void {
    this.timer = null;
    if (this.stopped || this.running) return;
    this.again = false;
    this.running = this.task({ woken: this.dueWoken }).catch(this.onError).finally(() => {
      this.running = null;
      if (!this.stopped) this.schedule(this.again ? this.options.wakeDelayMs ?? 0 : this.intervalMs, this.again);
    });
  }
}
