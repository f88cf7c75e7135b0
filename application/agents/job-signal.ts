/**
 * Long polls wait here instead of each asking the database: one probe per instance, only while
 * somebody waits, asks what is claimable (for executors holding credentials and for the others) and
 * answers it as a signature (application/scans/scan-lifecycle.ts#claimableSignature). A waiter is
 * woken when the signature its kind sees is not the one it was last woken with: new work, not the
 * same unclaimable work again (a scan pinned to another agent wakes each poll once, not each second).
 *
 * The probe runs at once when this instance learns that the queue changed (`poke`: a scan requested
 * or ended here) and every `everyMs` for what other instances did. Idle long polls cost one small
 * query per interval for the whole instance (the bench:agents idle figure).
 */
export interface Waiting {
  plain: string | null;
  credentialed: string | null;
}

interface Waiter {
  holdsCredentials: boolean;
  seen: string | null;
  wake: (signature: string | null) => void;
}

export class JobSignal {
  private readonly waiters = new Set<Waiter>();
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  private again = false;
  /**
   * The newest probe's answer and when it started. `stale` after a poke (the queue changed here since,
   * or during the probe): no longer trusted to say nothing is claimable, still a hint that work was.
   */
  private latest: { found: Waiting; at: number; stale: boolean } | null = null;

  constructor(private readonly probe: () => Promise<Waiting>, private readonly everyMs = 1000, private readonly onError: (e: unknown) => void = () => undefined) {}

  /**
   * Resolves with the signature of the work that woke the waiter (a claim may now succeed), or null
   * after `ms` or when `signal` aborts. `seen` is the signature it was last woken with: the same one
   * does not wake it again.
   */
  wait(holdsCredentials: boolean, ms: number, signal?: AbortSignal, seen: string | null = null): Promise<string | null> {
    return new Promise((resolve) => {
      let timeout: NodeJS.Timeout;
      const waiter: Waiter = {
        holdsCredentials,
        seen,
        wake: (signature) => {
          clearTimeout(timeout);
          signal?.removeEventListener('abort', onAbort);
          this.waiters.delete(waiter);
          this.idle();
          resolve(signature);
        },
      };
      const onAbort = () => waiter.wake(null);
      timeout = setTimeout(() => waiter.wake(null), Math.max(0, ms));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(waiter);
      this.ensureRunning();
    });
  }

  /**
   * True when a probe that started less than one interval ago, with no poke since, found nothing
   * claimable for anybody: a poll may then go straight to waiting without a claim of its own (the
   * next probe wakes it when that changes). Idle long polls cost no claim each.
   */
  nothingClaimable(): boolean {
    return this.fresh() && this.latest!.found.credentialed === null;
  }

  /**
   * Like nothingClaimable, but when no probe is fresh one is run now, shared by every poll that asks
   * meanwhile: fifty polls arriving together when nobody was waiting (so no probe ran) cost one
   * query instead of fifty claims that find nothing (bench:agents' idle figure).
   */
  async nothingClaimableNow(): Promise<boolean> {
    if (this.fresh()) return this.nothingClaimable();
    // Work was there at the last probe: the claim itself is the check (no probe in front of every claim under load).
    if (this.latest !== null && this.latest.found.credentialed !== null) return false;
    await (this.checking ?? this.check(true));
    return this.nothingClaimable();
  }

  private fresh(): boolean {
    return this.latest !== null && !this.latest.stale && Date.now() - this.latest.at < this.everyMs;
  }

  /** The queue changed on this instance: probe now rather than at the next interval. */
  poke(): void {
    if (this.latest) this.latest.stale = true;
    if (this.waiters.size === 0) return;
    if (this.checking) {
      this.again = true;
      return;
    }
    void this.check();
  }

  get waiting(): number {
    return this.waiters.size;
  }

  private ensureRunning(): void {
    if (this.timer) return;
    this.timer = setInterval(() => { if (!this.checking) void this.check(); }, this.everyMs);
    this.timer.unref?.();
  }

  private idle(): void {
    if (this.waiters.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** One probe (and another at once if poked meanwhile); `evenUnwatched`: also when nobody waits yet. */
  private check(evenUnwatched = false): Promise<void> {
    const run = (async () => {
      do {
        this.again = false;
        if (this.waiters.size === 0 && !evenUnwatched) return;
        evenUnwatched = false;
        try {
          const at = Date.now();
          const found = await this.probe();
          this.latest = { found, at, stale: this.again };
          for (const w of [...this.waiters]) {
            const signature = w.holdsCredentials ? found.credentialed : found.plain;
            if (signature !== null && signature !== w.seen) w.wake(signature);
          }
        } catch (error) {
          this.onError(error);
        }
      } while (this.again);
    })();
    this.checking = run;
    void run.finally(() => {
      if (this.checking === run) this.checking = null;
      if (this.again) this.poke();
    });
    return run;
  }
}
