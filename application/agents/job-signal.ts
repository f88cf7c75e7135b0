/**
 * Long polls wait here instead of each asking the database every second: one loop per instance, only
 * while somebody waits, asks whether anything is claimable (for executors holding credentials and for
 * the others) every `everyMs`, and wakes the waiters it concerns. A waiter that is woken tries a claim;
 * one that loses (another agent was first) waits again until its deadline. Idle long polls cost one
 * pair of small queries per interval for the whole instance (the bench:agents idle figure).
 */
export interface Waiting {
  plain: boolean;
  credentialed: boolean;
}

interface Waiter {
  holdsCredentials: boolean;
  wake: () => void;
}

export class JobSignal {
  private readonly waiters = new Set<Waiter>();
  private timer: NodeJS.Timeout | null = null;
  private checking = false;

  constructor(private readonly probe: () => Promise<Waiting>, private readonly everyMs = 1000, private readonly onError: (e: unknown) => void = () => undefined) {}

  /** Resolves when work the waiter could take may be there, after `ms`, or when `signal` aborts. */
  wait(holdsCredentials: boolean, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let timeout: NodeJS.Timeout;
      const waiter: Waiter = {
        holdsCredentials,
        wake: () => {
          clearTimeout(timeout);
          signal?.removeEventListener('abort', waiter.wake);
          this.waiters.delete(waiter);
          this.idle();
          resolve();
        },
      };
      timeout = setTimeout(waiter.wake, Math.max(0, ms));
      signal?.addEventListener('abort', waiter.wake, { once: true });
      this.waiters.add(waiter);
      this.ensureRunning();
    });
  }

  /** Something became claimable here (a request on this instance): wake everybody now. */
  poke(): void {
    for (const w of [...this.waiters]) w.wake();
  }

  get waiting(): number {
    return this.waiters.size;
  }

  private ensureRunning(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.check(), this.everyMs);
    this.timer.unref?.();
  }

  private idle(): void {
    if (this.waiters.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private async check(): Promise<void> {
    if (this.checking || this.waiters.size === 0) return;
    this.checking = true;
    try {
      const found = await this.probe();
      for (const w of [...this.waiters]) if (found.plain || (found.credentialed && w.holdsCredentials)) w.wake();
    } catch (error) {
      this.onError(error);
    } finally {
      this.checking = false;
    }
  }
}
