import { compareCursors, Cursor } from '../../domain/shared/event-envelope';

interface Waiter {
  names: readonly string[];
  cursor: Cursor;
  resolve: (reached: boolean) => void;
  timer: NodeJS.Timeout;
}

/**
 * Read-your-writes waiters of one process, resolved from checkpoint values known to be committed
 * in the database (trap 3 and 10 of EVENT-SOURCING.md):
 * - the values this process's runner has just committed, or read under its row locks, and
 * - the values one shared poll reads from `projection_checkpoints` while anybody waits, which is
 *   how a checkpoint moved by another instance reaches us.
 * Every value comes from the database, never from an in-process guess, so a waiter is released
 * only when the read model has its events. A value can be older than the database's (a poll that
 * raced a commit), which only delays a waiter until the next one; it is never newer.
 *
 * Why one registry instead of each request polling: with 32 gate callers at once, 32 pollers
 * backing off to 50 ms both loaded the database and overslept the commit by tens of ms.
 */
export class CheckpointWaiters {
  private readonly known = new Map<string, Cursor>();
  private readonly waiters = new Set<Waiter>();
  private polling: Promise<void> | null = null;

  constructor(
    private readonly readCheckpoints: (names: readonly string[]) => Promise<Array<[string, Cursor]>>,
    private readonly options: { pollMs?: number; onPollError?: (e: Error) => void } = {},
  ) {}

  /** Committed checkpoint values: resolves every waiter they satisfy. */
  observe(values: Iterable<[string, Cursor]>): void {
    for (const [name, cursor] of values) this.known.set(name, cursor);
    for (const w of this.waiters) {
      if (this.reached(w.names, w.cursor)) this.release(w, true);
    }
  }

  /** Forget what is known of these projections (a rebuild moves their checkpoints back). */
  forget(names: readonly string[]): void {
    for (const n of names) this.known.delete(n);
  }

  reached(names: readonly string[], cursor: Cursor): boolean {
    return names.every((n) => {
      const k = this.known.get(n);
      return k !== undefined && compareCursors(k, cursor) >= 0;
    });
  }

  /** Resolves true once every projection named is at or past `cursor`, false after `timeoutMs`. */
  wait(names: readonly string[], cursor: Cursor, timeoutMs: number): Promise<boolean> {
    if (this.reached(names, cursor)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = { names, cursor, resolve, timer: setTimeout(() => this.release(waiter, false), timeoutMs) };
      this.waiters.add(waiter);
      this.poll();
    });
  }

  get waiting(): number {
    return this.waiters.size;
  }

  private release(w: Waiter, reached: boolean): void {
    if (!this.waiters.delete(w)) return;
    clearTimeout(w.timer);
    w.resolve(reached);
  }

  /** One poll loop per process while anybody waits; each round reads the checkpoints waited on. */
  private poll(): void {
    if (this.polling) return;
    this.polling = (async () => {
      while (this.waiters.size > 0) {
        await new Promise((r) => setTimeout(r, this.options.pollMs ?? 20));
        if (this.waiters.size === 0) break;
        const names = [...new Set([...this.waiters].flatMap((w) => w.names))];
        try {
          this.observe(await this.readCheckpoints(names));
        } catch (error) {
          this.options.onPollError?.(error as Error);
        }
      }
    })().finally(() => { this.polling = null; if (this.waiters.size > 0) this.poll(); });
  }
}
