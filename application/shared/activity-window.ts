/**
 * Whether this process is doing foreground work: commands in flight (`begin`/`end`, from the
 * command handler) or a recent `touch()` (the projection runner committed a step), within the
 * window after the last. Background loops that may wait (the SIEM drain of an outage backlog) pace
 * themselves while it is busy and run at full speed while it is idle.
 */
export class ActivityWindow {
  private last = Number.NEGATIVE_INFINITY;
  private inFlight = 0;

  constructor(private readonly windowMs: number, private readonly now: () => number = () => performance.now()) {}

  touch(): void {
    this.last = this.now();
  }

  begin(): void {
    this.inFlight += 1;
  }

  end(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.touch();
  }

  /** Runs `work` as foreground work. */
  async around<T>(work: () => Promise<T>): Promise<T> {
    this.begin();
    try {
      return await work();
    } finally {
      this.end();
    }
  }

  busy(): boolean {
    return this.inFlight > 0 || this.now() - this.last < this.windowMs;
  }
}
