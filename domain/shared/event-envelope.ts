/**
 * The envelope of a recorded fact, shared by every layer (the shared kernel): what an event is once
 * the log holds it, where it stands in the log, and who caused it. Deciders never see it; command
 * handlers, the event store adapters, projections and auditors' tools do.
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
