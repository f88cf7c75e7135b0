import type { AppendResult, EventStore, ExpectedRevision, StreamAppend } from '../../application/ports/event-store';
import type { Cursor, NewEvent, RecordedEvent } from '../../domain/shared/event-envelope';

/** Told of every append: how long it took, whether it succeeded and which events it wrote. */
export interface AppendObserver {
  appended(operation: 'append' | 'appendMany', seconds: number, events: readonly NewEvent[], ok: boolean): void;
}

/**
 * The event store with its appends measured (GET /metrics: append latency, events by type, the
 * verdicts and scan outcomes they carry). Reads pass straight through; the projections read from
 * the store itself, not from this wrapper.
 */
export class ObservedEventStore implements EventStore {
  /**
   * Many streams in one statement, where the store behind can (the SQL table): passed through, not
   * dropped, since exports as of an instant fall back to one read per stream without it (50,000
   * issue streams: 72 s instead of 5 s, docs/BENCHMARKS.md), and agents' claims fold many scans at once.
   */
  readonly readStreams?: (streams: readonly string[]) => Promise<Map<string, RecordedEvent[]>>;

  constructor(private readonly inner: EventStore, private readonly observer: AppendObserver) {
    if (inner.readStreams) this.readStreams = (streams) => inner.readStreams!(streams);
  }

  append(stream: string, events: NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    return this.observe('append', events, () => this.inner.append(stream, events, expectedRevision));
  }

  appendMany(appends: StreamAppend[]): Promise<AppendResult> {
    return this.observe('appendMany', appends.flatMap((a) => a.events), () => this.inner.appendMany(appends));
  }

  readStream<T = unknown>(stream: string): Promise<RecordedEvent<T>[]> {
    return this.inner.readStream<T>(stream);
  }

  /** Extra arguments (the SQL store's transaction) pass through: a projection runner may read through this wrapper too. */
  readAll(after: Cursor, limit: number, ...rest: unknown[]): Promise<RecordedEvent[]> {
    return (this.inner.readAll as (...a: unknown[]) => Promise<RecordedEvent[]>).call(this.inner, after, limit, ...rest);
  }

  countAfter(after: Cursor, bound?: number): Promise<number> {
    const inner = this.inner as EventStore & { countAfter?: (after: Cursor, bound?: number) => Promise<number> };
    return inner.countAfter ? inner.countAfter(after, bound) : Promise.resolve(0);
  }

  head(): Promise<Cursor> {
    return this.inner.head();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async observe(operation: 'append' | 'appendMany', events: NewEvent[], run: () => Promise<AppendResult>): Promise<AppendResult> {
    const started = process.hrtime.bigint();
    let ok = false;
    try {
      const result = await run();
      ok = true;
      return result;
    } finally {
      this.observer.appended(operation, Number(process.hrtime.bigint() - started) / 1e9, events, ok);
    }
  }
}
