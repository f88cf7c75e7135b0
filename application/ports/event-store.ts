import type { Cursor, NewEvent, RecordedEvent } from '../../domain/shared/event-envelope';

/**
 * The event store port. Two adapters implement it (infrastructure/eventstore): an SQL event
 * table and EventStoreDB. One contract suite (spec/infrastructure/eventstore) runs against each.
 */
/** 'no_stream': the stream must not exist; 'any': no check; a number: the stream's last revision. */
export type ExpectedRevision = 'no_stream' | 'any' | number;

export interface AppendResult {
  /** Revision of the last event written (or already present, for an idempotent re-append). */
  nextRevision: number;
  /** Cursor of the last event appended: wait for projections to pass it for read-your-writes. */
  cursor: Cursor;
}

export interface StreamAppend {
  stream: string;
  events: NewEvent[];
  expectedRevision: ExpectedRevision;
}

export class WrongExpectedRevision extends Error {
  constructor(readonly stream: string, readonly expected: ExpectedRevision, readonly actual: number | null) {
    super(`Stream ${stream}: expected revision ${String(expected)}, found ${actual === null ? 'no stream' : actual}`);
    this.name = 'WrongExpectedRevision';
  }
}

export interface EventStore {
  append(stream: string, events: NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult>;
  /**
   * Several streams in one atomic commit (all or nothing): a target and its uniqueness reservation,
   * say. EventStoreDB has no multi-stream transaction; its adapter appends in order and documents it.
   */
  appendMany(appends: StreamAppend[]): Promise<AppendResult>;
  readStream<T = unknown>(stream: string): Promise<RecordedEvent<T>[]>;
  /**
   * Several streams at once, each in revision order (issue #11: an export as of an instant folds
   * thousands of issue streams). Optional: a reader without it reads them one by one.
   */
  readStreams?(streams: readonly string[]): Promise<Map<string, RecordedEvent[]>>;
  /** Events after `after`, in cursor order, only a prefix no late commit can still enter. */
  readAll(after: Cursor, limit: number): Promise<RecordedEvent[]>;
  /** Cursor of the newest event readers may see (START when empty). */
  head(): Promise<Cursor>;
  close(): Promise<void>;
}
