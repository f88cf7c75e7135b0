/**
 * The password throttle (issue #17; spec 2 §6 VGL-SEC-007): failed sign-ins are counted per
 * account name (whether or not the account exists, so that a refusal reveals nothing) and per
 * client address (per /64 for IPv6). Past a ceiling within a fixed window, every attempt on that
 * name or from that address is refused until the window ends, the right password included.
 *
 * Counters live in this process, like the other request budgets (ADR 0005, ADR 0013): with N
 * instances behind a balancer an attacker gets up to N times the ceiling. Time comes in as an
 * argument so that the class stays pure and tests move it with the clock.
 */
export interface ThrottleLimits {
  perAccount: number;
  perAddress: number;
  windowMs: number;
}

export type ThrottleScope = 'account' | 'address';

/** One subject's window: failures counted up to the ceiling, then refused attempts. */
interface Window {
  scope: ThrottleScope;
  subject: string;
  start: number;
  failures: number;
  refused: number;
}

/** A window that refused attempts and has ended: what the summary event says. */
export interface EndedThrottle {
  scope: ThrottleScope;
  subject: string;
  failures: number;
  refused: number;
  windowStartedAt: string;
  windowEndedAt: string;
}

export type Attempt =
  | { allowed: true }
  | {
    allowed: false;
    retryAfterSeconds: number;
    /** Ceilings this attempt is the first refusal of (each recorded once per window). */
    ceilingsReached: { scope: ThrottleScope; subject: string; failures: number; windowEndsAt: string }[];
  };

/** Above this many windows the ended ones are pruned (then again at twice the size left). */
const PRUNE_AT = 100_000;

export class SignInThrottle {
  private readonly windows = new Map<string, Window>();
  /** Keys of windows that refused attempts: each owes a summary when it ends. */
  private readonly throttled = new Set<string>();
  /** Summaries of windows already replaced or pruned, waiting for drain(). */
  private readonly pending: EndedThrottle[] = [];
  private pruneAt = PRUNE_AT;

  constructor(private readonly limits: ThrottleLimits) {}

  /**
   * Called before the password is checked. An allowed attempt is counted as a failure at once
   * (no await between the check and the count, so parallel guesses cannot slip past the
   * ceiling); `succeeded` takes it back.
   */
  attempt(account: string, address: string, now: number): Attempt {
    const windows = [this.window('account', account, now), this.window('address', address, now)];
    const blocked = windows.filter((w) => w.failures >= this.limitOf(w.scope));
    if (blocked.length === 0) {
      for (const w of windows) w.failures += 1;
      return { allowed: true };
    }
    const ceilingsReached = blocked.filter((w) => w.refused === 0).map((w) => ({
      scope: w.scope, subject: w.subject, failures: w.failures, windowEndsAt: new Date(w.start + this.limits.windowMs).toISOString(),
    }));
    for (const w of blocked) {
      w.refused += 1;
      this.throttled.add(key(w.scope, w.subject));
    }
    const end = Math.max(...blocked.map((w) => w.start + this.limits.windowMs));
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((end - now) / 1000)), ceilingsReached };
  }

  /** The right password: the account's count starts again; the address keeps its other failures. */
  succeeded(account: string, address: string): void {
    const k = key('account', account);
    if (!this.throttled.has(k)) this.windows.delete(k);
    const w = this.windows.get(key('address', address));
    if (w && w.failures > 0) w.failures -= 1;
  }

  /** Summaries due: windows that refused attempts and have ended since the last call. */
  drain(now: number): EndedThrottle[] {
    const out = this.pending.splice(0, this.pending.length);
    for (const k of this.throttled) {
      const w = this.windows.get(k)!;
      if (now < w.start + this.limits.windowMs) continue;
      out.push(summary(w, this.limits.windowMs));
      this.throttled.delete(k);
      this.windows.delete(k);
    }
    return out;
  }

  private limitOf(scope: ThrottleScope): number {
    return scope === 'account' ? this.limits.perAccount : this.limits.perAddress;
  }

  private window(scope: ThrottleScope, subject: string, now: number): Window {
    const k = key(scope, subject);
    let w = this.windows.get(k);
    if (!w || now >= w.start + this.limits.windowMs) {
      if (w) this.forget(k, w);
      w = { scope, subject, start: now, failures: 0, refused: 0 };
      this.windows.set(k, w);
      if (this.windows.size > this.pruneAt) this.prune(now);
    }
    return w;
  }

  private forget(k: string, w: Window): void {
    if (this.throttled.delete(k)) this.pending.push(summary(w, this.limits.windowMs));
    this.windows.delete(k);
  }

  private prune(now: number): void {
    for (const [k, w] of this.windows) if (now >= w.start + this.limits.windowMs) this.forget(k, w);
    this.pruneAt = Math.max(PRUNE_AT, this.windows.size * 2);
  }
}

function key(scope: ThrottleScope, subject: string): string {
  return `${scope}:${subject}`;
}

function summary(w: Window, windowMs: number): EndedThrottle {
  return {
    scope: w.scope, subject: w.subject, failures: w.failures, refused: w.refused,
    windowStartedAt: new Date(w.start).toISOString(), windowEndedAt: new Date(w.start + windowMs).toISOString(),
  };
}
