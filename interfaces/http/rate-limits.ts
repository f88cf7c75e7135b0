/**
 * Fixed-window counters kept in this process (spec 1 §8.2): integration-key requests per
 * minute and refused bearer tokens per address. Several instances each count their own share;
 * docs/adr/0005 says why that is acceptable for now.
 */
export class WindowCounter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly limit: number, private readonly windowMs: number) {}

  /** Counts one hit; returns seconds to wait when the limit was already reached, else 0. */
  hit(key: string, now: number): number {
    const w = this.current(key, now);
    if (w.count >= this.limit) return Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
    w.count += 1;
    return 0;
  }

  /** Seconds left while the key is over the limit, without counting. */
  blockedFor(key: string, now: number): number {
    const w = this.windows.get(key);
    if (!w || now >= w.start + this.windowMs || w.count < this.limit) return 0;
    return Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
  }

  private current(key: string, now: number) {
    let w = this.windows.get(key);
    if (!w || now >= w.start + this.windowMs) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
      if (this.windows.size > 100_000) this.prune(now);
    }
    return w;
  }

  private prune(now: number): void {
    for (const [k, w] of this.windows) if (now >= w.start + this.windowMs) this.windows.delete(k);
  }
}
