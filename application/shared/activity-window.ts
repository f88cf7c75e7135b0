/**
 * Whether this process did foreground work lately: `touch()` when it does (the projection runner
 * committed a step of some command's events), `busy()` while the last touch is within the window.
 * Background loops that may wait (the SIEM drain of an outage backlog) pace themselves while it is
 * busy and run at full speed while it is idle.
 */
export class ActivityWindow {
  private last = Number.NEGATIVE_INFINITY;

  constructor(private readonly windowMs: number, private readonly now: () => number = () => performance.now()) {}

  touch(): void {
    this.last = this.now();
  }

  busy(): boolean {
    return this.now() - this.last < this.windowMs;
  }
}
