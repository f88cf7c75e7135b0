/**
 * How a unit of work that lost a race on a stream's revision is tried again (trap 5): a bounded
 * number of attempts, each after a pause drawn at random below a ceiling that doubles ("full
 * jitter"), so that writers who collided do not collide again in step.
 */
export interface RetryPolicy {
  readonly attempts: number;
  pause(afterAttempt: number): Promise<void>;
}

export function jitteredRetry(attempts: number, baseMs: number, capMs: number, random: () => number = Math.random): RetryPolicy {
  return {
    attempts,
    pause: (afterAttempt) => {
      const ceiling = Math.min(capMs, baseMs * 2 ** (afterAttempt - 1));
      const ms = Math.floor(random() * ceiling);
      return ms === 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
    },
  };
}

/** Five attempts, pauses below 2, 4, 8 and 16 ms: contention on one stream is short-lived. */
export const STANDARD_RETRY = jitteredRetry(5, 2, 50);
