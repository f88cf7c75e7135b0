import { AppendResult, EventStore, StreamAppend } from '../ports/event-store';

interface Pending {
  appends: StreamAppend[];
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for independent appends on a hot path (a verdict per CI gate call, each on its own
 * new stream): while one append is in flight, the appends that arrive queue up, and the next
 * transaction carries all of them. A lone caller is appended at once (no timer, no added wait);
 * under load, 32 callers cost a few commits instead of 32.
 *
 * Each caller hears the batch's result: its cursor is at or past the caller's own events, which is
 * what read-your-writes waits on. If a batch fails, its members are appended again one by one, so
 * that one caller's conflict is that caller's alone. Only for appends that cannot conflict with
 * each other (distinct new streams); nextRevision of the result is the batch's, not the caller's.
 */
export class CoalescingAppender {
  private readonly queue: Pending[] = [];
  private flushing = false;

  constructor(private readonly store: EventStore, private readonly maxPerBatch = 256) {}

  append(appends: StreamAppend[]): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ appends, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxPerBatch);
        try {
          const result = await this.store.appendMany(batch.flatMap((p) => p.appends));
          for (const p of batch) p.resolve(result);
        } catch (error) {
          if (batch.length === 1) {
            batch[0].reject(error);
            continue;
          }
          for (const p of batch) {
            try {
              p.resolve(await this.store.appendMany(p.appends));
            } catch (own) {
              p.reject(own);
            }
          }
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
