/**
 * Runs a task now, then every interval; a run still going when the next is due is not doubled,
 * and a failed run is logged and tried again at the next interval. Background loops (schedulers,
 * maintenance) share it.
 */
export class IntervalLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;

  constructor(private readonly task: () => Promise<unknown>, private readonly onError: (error: unknown) => void) {}

  start(intervalMs: number): void {
    if (this.timer) return;
    const tick = () => {
      if (this.running) return;
      this.running = this.task().catch(this.onError).finally(() => { this.running = null; });
    };
    this.timer = setInterval(tick, Math.max(1000, intervalMs));
    this.timer.unref?.();
    tick();
  }

  /** Stops the interval and waits for a run in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
