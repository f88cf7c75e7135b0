export interface IntervalLoopOptions {
  /**
   * The shortest interval `start` accepts (default 1 s: a mistyped setting must not spin a
   * scheduler against the database). Loops woken by a signal and bounded by their own work may
   * lower it.
   */
  minimumIntervalMs?: number;
}

/**
 * Runs a task now, then again `interval` after each run ends (setTimeout chained, so a run still
 * going is never doubled and a slow run does not queue runs behind it); a failed run is logged and
 * tried again at the next interval. `wake()` runs it as soon as possible: at once when idle, right
 * after the current run otherwise (several wakes during one run give one more run). Every
 * background loop shares it: schedulers, maintenance, the SIEM deliverer and the audit mirror.
 */
export class IntervalLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = true;
  private again = false;
  private intervalMs = 0;

  constructor(
    private readonly task: () => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
    private readonly options: IntervalLoopOptions = {},
  ) {}

  get started(): boolean { return !this.stopped; }

  start(intervalMs: number): void {
    if (!this.stopped) return;
    this.stopped = false;
    // setTimeout takes at most 2^31 - 1 ms (about 24.8 days); longer would fire at once.
    this.intervalMs = Math.min(2_147_483_647, Math.max(this.options.minimumIntervalMs ?? 1000, intervalMs));
    this.schedule(0);
  }

  /** Runs the task soon (not before start, nor after stop). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  /** Stops the loop and waits for a run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), ms);
    // A background loop never keeps the process alive on its own (the server's socket does).
    this.timer.unref?.();
  }

  private run(): void {
    this.timer = null;
    if (this.stopped || this.running) return;
    this.again = false;
    this.running = this.task().catch(this.onError).finally(() => {
      this.running = null;
      if (!this.stopped) this.schedule(this.again ? 0 : this.intervalMs);
    });
  }
}
