import { triageDecider } from '../../domain/triage';
import { streams } from '../../domain/shared/streams';
import { CommandHandler } from '../command-handler';
import { Clock } from '../ports/clock';
import { IntervalLoop } from '../shared/interval-loop';
import { DueReviews } from './ports';

interface Log {
  info(message: string, meta?: unknown): void;
  error(message: string, meta?: unknown): void;
}

const BATCH = 500;

/**
 * Review dates of will_not_fix exceptions (spec 1 §3.2 "will_not_fix --review date reached-->
 * under_review", S1.3.2-07). Each run reads the issues whose review date is at or before the Clock's
 * now and sends ReviewDateReached (no actor) on each stream. The decider decides nothing when the date
 * is no longer due (someone extended or re-triaged meanwhile), and a second instance running at the
 * same time meets the first one's event on retry, so runs are safe to overlap across instances.
 * Runs every VIGIL_MAINTENANCE_INTERVAL (default 1h) from the server; specs call runOnce directly.
 */
export class ReviewScheduler {
  private readonly loop = new IntervalLoop(
    () => this.runOnce(),
    (error) => this.log.error('Review-date run failed; the next run tries again', { error: (error as Error)?.stack ?? String(error) }),
  );

  constructor(
    private readonly reviews: DueReviews,
    private readonly commands: CommandHandler,
    private readonly clock: Clock,
    private readonly log: Log = { info: () => undefined, error: () => undefined },
  ) {}

  /** One pass: every due will_not_fix issue moves to under_review. Answers how many moved and how many failed. */
  async runOnce(): Promise<{ expired: number; failed: number }> {
    const now = this.clock.now();
    let expired = 0;
    let failed = 0;
    let after = 0;
    for (;;) {
      const due = await this.reviews.due(now, after, BATCH);
      for (const issue of due) {
        try {
          const decided = await this.commands.execute(
            streams.issue(issue.issueKey), triageDecider, { type: 'ReviewDateReached', now },
            { actor: null, address: null, userAgent: null, correlationId: 'review-scheduler', now },
          );
          if (decided.events.length) expired++;
        } catch (error) {
          failed++;
          this.log.error('Review date: the issue could not be moved to under_review; the next run tries again', { issueId: issue.id, error: (error as Error)?.stack ?? String(error) });
        }
      }
      if (due.length < BATCH) break;
      after = due[due.length - 1].id;
    }
    if (expired) this.log.info(`Review dates reached: ${expired} will_not_fix issue(s) back under review`);
    return { expired, failed };
  }

  /** Runs now, then every intervalMs; a run still going when the next is due is not doubled. */
  start(intervalMs: number): void {
    this.loop.start(intervalMs);
  }

  /** Stops the interval and waits for a run in progress. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }
}
