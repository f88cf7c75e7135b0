/**
 * The event store port. Two adapters implement it (infrastructure/eventstore): an SQL event
 * table and EventStoreDB. One contract suite (spec/infrastructure/eventstore) runs against each.
 */
export interface EventMetadata {
  /** Account id that caused the event; null for the system (schedulers, reopen by a scan). */
  actor: number | null;
  /** Client address as believed under VIGIL_TRUSTED_PROXIES. */
  address?: string | null;
  userAgent?: string | null;
  correlationId?: string | null;
  /** When the decision was taken (from the Clock port), ISO 8601 UTC. */
  at: string;
  [key: string]: unknown;
}

export interface NewEvent {
  /**
   * Unique event id (UUID). Re-appending the same events to the same stream is idempotent: the
   * append is done when they are where it would have put them (ADR 0010).
   */
  id: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
}

/**
 * Where an event stands in the global log. Subscribers receive events in cursor order and
 * checkpoint the cursor. `commit` orders transactions (PostgreSQL transaction id, 0 elsewhere),
 * `position` is the global sequence number; compare with compareCursors.
 */
export interface Cursor {
  commit: string;
  position: number;
}

export const START: Cursor = { commit: '0', position: 0 };

export function compareCursors(a: Cursor, b: Cursor): number {
  const ac = BigInt(a.commit);
  const bc = BigInt(b.commit);
  if (ac !== bc) return ac < bc ? -1 : 1;
  return a.position === b.position ? 0 : a.position < b.position ? -1 : 1;
}

export interface RecordedEvent<Data = unknown> {
  id: string;
  stream: string;
  revision: number;
  type: string;
  data: Data;
  metadata: EventMetadata;
  cursor: Cursor;
  /**
   * The data and metadata texts exactly as the log stores them, when the adapter reads texts (the
   * SQL store): the audit chain hashes them as they are (ADR 0012). EventStoreDB's adapter leaves them out.
   */
  storedData?: string;
  storedMetadata?: string;
}

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
  /** Events after `after`, in cursor order, only a prefix no late commit can still enter. */
  readAll(after: Cursor, limit: number): Promise<RecordedEvent[]>;
  /** Cursor of the newest event readers may see (START when empty). */
  head(): Promise<Cursor>;
  close(): Promise<void>;
}
