import { KnexTimeoutError } from 'knex';
import { RecordedEvent } from '../../domain/shared/event-envelope';
import { RowWriter } from './row-writer';

/**
 * Events a projection could not take (ADR 0011): recorded in `projection_failures` (migration v014)
 * and skipped, so that one event never stops a read model, the other read models or the server.
 */
export const FAILURES_TABLE = 'projection_failures';

export interface ProjectionFailure {
  projection: string;
  position: number;
  commit: string;
  eventId: string;
  type: string;
  stream: string;
  /** What went wrong, for a person: the database's own message without the statement (bounded). */
  error: string;
  /** When it was recorded. */
  at: string;
}

const ERROR_LENGTH = 1000;

export function failureOf(projection: string, event: RecordedEvent, error: unknown, at: string): ProjectionFailure {
  return {
    projection, position: event.cursor.position, commit: event.cursor.commit, eventId: String(event.id), type: event.type,
    stream: event.stream, error: describeError(error), at,
  };
}

/** Within the transaction that moves the projection past them: recorded exactly when skipped. */
export async function recordFailures(writer: RowWriter, failures: readonly ProjectionFailure[]): Promise<void> {
  // An event recorded before (its checkpoint was moved back by hand) is recorded again, once.
  for (const f of failures) {
    writer.upsert(FAILURES_TABLE, {
      projection: f.projection, position: f.position, commit_id: f.commit, event_id: f.eventId, type: f.type, stream_id: f.stream, error: f.error, at: f.at,
    }, ['projection', 'position']);
  }
  await writer.flush();
}

/**
 * The error's text without the statement knex puts in front of a database's message: on MySQL that
 * statement carries the values (a password hash, say), and the text is shown by GET /health.
 */
export function describeError(error: unknown): string {
  const e = error as { message?: unknown; sqlMessage?: unknown; code?: unknown } | null;
  let text: string;
  if (e && typeof e.sqlMessage === 'string') text = e.sqlMessage;
  else if (e && typeof e.message === 'string') text = isSqlState(e.code) && e.message.includes(' - ') ? e.message.slice(e.message.lastIndexOf(' - ') + 3) : e.message;
  else text = String(error);
  const code = e && (typeof e.code === 'string' || typeof e.code === 'number') ? `${e.code}: ` : '';
  const name = !code && error instanceof Error && error.name !== 'Error' ? `${error.name}: ` : '';
  const full = `${code || name}${text}`;
  return full.length > ERROR_LENGTH ? `${full.slice(0, ERROR_LENGTH - 1)}…` : full;
}

function isSqlState(code: unknown): boolean {
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/** PostgreSQL SQLSTATE classes: connection (08), rollback (40), resources (53), operator (57), system (58), internal (XX); a failed transaction (25P02). */
const TRANSIENT_SQLSTATE = /^(08|40|53|57|58|XX)|^25P02$/;
/**
 * MySQL/MariaDB: deadlock and lock wait end the transaction (or may), and a savepoint that no longer
 * exists says it ended: going on would write the checkpoint outside it.
 */
const TRANSIENT_CODES = new Set([
  'ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', 'ER_SP_DOES_NOT_EXIST', 'ER_QUERY_INTERRUPTED', 'ER_SERVER_SHUTDOWN', 'ER_CON_COUNT_ERROR',
  'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND',
]);

/**
 * Whether an error belongs to the database or the connection rather than to the event: then the
 * whole step fails and is tried again from its checkpoint, as before; an event is never skipped for it.
 */
export function isTransient(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (error instanceof KnexTimeoutError) return true;
  if (typeof e.code === 'string') {
    if (TRANSIENT_CODES.has(e.code)) return true;
    if (/^[0-9A-Z]{5}$/.test(e.code) && TRANSIENT_SQLSTATE.test(e.code)) return true;
  }
  return false;
}
