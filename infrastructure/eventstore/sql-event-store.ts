import { Knex } from 'knex';
import { AppendResult, EventStore, ExpectedRevision, StreamAppend, WrongExpectedRevision } from '../../application/ports/event-store';
import { Cursor, EventMetadata, NewEvent, RecordedEvent, START } from '../../domain/shared/event-envelope';
import { Database, rawRows } from '../db/database';
import { pgNamedQuery } from '../db/prepared';
import { walkIndexOrder } from '../db/index-order';

/** Events over this size are refused: trap 7 of docs/EVENT-SOURCING (batch instead). */
export const MAX_EVENT_BYTES = 900 * 1024;
/** Rows per INSERT statement, far below PostgreSQL's 65,535 bind parameters. */
const INSERT_CHUNK = 1000;
/**
 * Event text (characters of data and metadata) per INSERT statement of a multi-stream append. A
 * statement's rows, the escaped array literals the driver builds from them and its message buffer
 * live until the statement answers; at 5,000 issue events (about 5 MB of text) they outlived V8's
 * young generation and were promoted, about 40 MB of old-space garbage per statement, which made a
 * 50,000-result SARIF import peak 150 MB higher. About 1 MB keeps them short-lived; the extra
 * round trips cost nothing measurable.
 */
const INSERT_CHUNK_TEXT = 1024 * 1024;

interface EventRow {
  position: number | string;
  commit_id: string | number;
  event_id: string;
  stream_id: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
}

/**
 * The event log as a table in the relational database (ADR 0002).
 *
 * Late commits (trap 1): on PostgreSQL (and PGlite) every row records its transaction id
 * (xid8); readers see only rows whose transaction is older than the oldest one still running
 * (pg_snapshot_xmin), ordered by (transaction id, position), so a transaction that took a lower
 * position but commits late is still delivered, never skipped. Appends read every revision they
 * depend on before their first write, so a stream's events always carry ascending transaction ids.
 * On MySQL/MariaDB there is no snapshot filter: appends are serialised on a lock row, which makes
 * positions ascend in commit order.
 */
export interface SqlEventStoreOptions {
  /** Test hook: runs inside an append's transaction just before it commits (to hold it open). */
  beforeCommit?: (streams: string[]) => Promise<void>;
}

export class SqlEventStore implements EventStore {
  constructor(private readonly db: Database, private readonly options: SqlEventStoreOptions = {}) {}

  async append(stream: string, events: NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    return this.appendMany([{ stream, events, expectedRevision }]);
  }

  async appendMany(appends: StreamAppend[]): Promise<AppendResult> {
    const nonEmpty = appends.filter((a) => a.events.length > 0);
    if (nonEmpty.length === 0) throw new Error('appendMany: nothing to append');
    for (const a of nonEmpty) refuseSeparator('Stream', a.stream);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.appendOnce(nonEmpty);
      } catch (error) {
        // 'any' promises no check: losing a race for the next revision is retried, not reported.
        if (error instanceof RevisionRaceLost && attempt < ANY_ATTEMPTS) continue;
        if (error instanceof RevisionRaceLost) throw error.refusal;
        throw error;
      }
    }
  }

  private async appendOnce(nonEmpty: StreamAppend[]): Promise<AppendResult> {
    if (this.db.isPostgres && nonEmpty.length === 1 && nonEmpty[0].events.length <= INSERT_CHUNK && !this.options.beforeCommit) {
      const [one] = nonEmpty;
      return this.appendInOneStatement({ stream: one.stream, expectedRevision: one.expectedRevision, rows: one.events.map((e) => serialise(one.stream, e)) });
    }
    try {
      return await this.db.knex.transaction(async (trx) => {
        if (this.db.engine === 'mysql') await trx.raw('SELECT id FROM event_append_lock WHERE id = 1 FOR UPDATE');
        // Every read before the first write (see class comment).
        const current = await this.currentRevisions(trx, nonEmpty.map((a) => a.stream));
        const refused = firstRefused(nonEmpty, current);
        // A retry of a commit that already happened finds its events where they went (idempotence);
        // with 'any' nothing else would stop it, so those are always looked for.
        if (refused || nonEmpty.some((a) => a.expectedRevision === 'any')) {
          const done = await this.alreadyAppended(trx, nonEmpty, current);
          if (done) return done;
        }
        if (refused) throw new WrongExpectedRevision(refused.stream, refused.expectedRevision, current.get(refused.stream) ?? null);
        const planned: Planned[] = [];
        for (const append of nonEmpty) {
          const first = (current.get(append.stream) ?? -1) + 1;
          append.events.forEach((event, i) => planned.push({ stream: append.stream, event, revision: first + i }));
        }
        const last = await this.insertRows(trx, planned);
        if (this.options.beforeCommit) await this.options.beforeCommit(nonEmpty.map((a) => a.stream));
        return last;
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      return this.afterLostRace(nonEmpty);
    }
  }

  /**
   * The append wrote nothing: another one took a revision it planned (the unique key on stream and
   * revision refused it), or its expectation did not hold, or ('any') its events are already the
   * stream's last. Answers the result when these very events are in the log (a retry, perhaps a
   * concurrent one); throws the wrong expected revision of the first stream whose expectation fails,
   * or RevisionRaceLost when only 'any' appends lost, which appendMany tries again.
   */
  private async afterLostRace(appends: ReadonlyArray<AppendPlan>): Promise<AppendResult> {
    const current = await this.currentRevisions(this.db.knex, appends.map((a) => a.stream));
    const done = await this.alreadyAppended(this.db.knex, appends, current);
    if (done) return done;
    const refused = firstRefused(appends, current);
    if (refused) throw new WrongExpectedRevision(refused.stream, refused.expectedRevision, current.get(refused.stream) ?? null);
    const lost = appends.find((a) => a.expectedRevision === 'any') ?? appends[0];
    throw new RevisionRaceLost(new WrongExpectedRevision(lost.stream, lost.expectedRevision, current.get(lost.stream) ?? null));
  }

  /**
   * The common case on PostgreSQL: one stream, one statement, one round trip. The revision check
   * and the insert share the statement's snapshot, read before the transaction id is assigned at
   * the insert, so the stream-order guarantee of the class comment holds. A racing append to the
   * same revision fails on the unique key; afterLostRace says what that means.
   */
  private async appendInOneStatement(append: AppendPlan & { rows: SerialisedRow[] }): Promise<AppendResult> {
    // Two statement texts that never change, so PostgreSQL keeps each prepared per connection
    // (no parse or plan per append): one checks the expected revision, one ('any') looks for a retry.
    const { rows } = append;
    const shared = rows.every((r) => r.metadata === rows[0].metadata) ? rows[0].metadata : null;
    const values: unknown[] = [append.stream, joinColumn(rows, 'event_id'), joinColumn(rows, 'type'), joinColumnBytes(rows, 'data'), shared, shared === null ? joinColumnBytes(rows, 'metadata') : null];
    const any = append.expectedRevision === 'any';
    if (any) values.push(rows.length, rows[0].event_id);
    else values.push(append.expectedRevision === 'no_stream' ? -1 : Number(append.expectedRevision));
    let written: EventRow[];
    try {
      written = await this.query<EventRow>(any ? 'vigil_append_any_v1' : 'vigil_append_expected_v1', any ? APPEND_ANY : APPEND_EXPECTED, values);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      written = [];
    }
    if (written.length === 0) return this.afterLostRace([append]);
    const [last] = written;
    return { nextRevision: Number(last.revision), cursor: cursorOf(last) };
  }

  /**
   * A statement on PostgreSQL through the driver, named so that each pooled connection prepares
   * it once; elsewhere (PGlite) through knex with the same `$n` text.
   */
  private async query<R>(name: string, text: string, values: unknown[]): Promise<R[]> {
    if (this.db.engine !== 'postgres') {
      // knex binds `?` by position: each `$n` becomes one, with its value repeated where reused.
      const ordered: unknown[] = [];
      const positional = text.replace(/\$(\d+)/g, (_, n: string) => { ordered.push(values[Number(n) - 1]); return '?'; });
      return rawRows<R>(this.db, await this.db.knex.raw(positional, ordered as never));
    }
    return pgNamedQuery<R>(this.db, name, text, values);
  }

  async readStream<T = unknown>(stream: string): Promise<RecordedEvent<T>[]> {
    const rows: EventRow[] = await this.db.knex('events')
      .select(this.columns())
      .where('stream_id', stream)
      .orderBy('revision', 'asc');
    return toRecordedAll<T>(rows);
  }

  /** Many streams in statements of 1,000 (exports as of an instant), each stream's events in revision order. */
  async readStreams(streams: readonly string[]): Promise<Map<string, RecordedEvent[]>> {
    const found = new Map<string, RecordedEvent[]>(streams.map((s) => [s, []]));
    for (let i = 0; i < streams.length; i += 1000) {
      const rows: EventRow[] = await this.db.knex('events').select(this.columns()).whereIn('stream_id', streams.slice(i, i + 1000))
        .orderBy([{ column: 'stream_id' }, { column: 'revision' }]);
      for (const event of toRecordedAll(rows)) found.get(event.stream)?.push(event);
    }
    return found;
  }

  async readAll(after: Cursor, limit: number, context?: Knex.Transaction): Promise<RecordedEvent[]> {
    const q = context ?? this.db.knex;
    if (this.db.engine === 'mysql') {
      const rows: EventRow[] = await q('events').select(this.columns()).where('position', '>', after.position)
        .orderBy('position', 'asc').limit(limit);
      return toRecordedAll(rows);
    }
    // The (commit_id, position) index is the order of the log: each page walks it.
    const page = async (t: Knex | Knex.Transaction) => {
      await walkIndexOrder(t);
      return t.raw(
        `SELECT ${this.columns().join(', ')} FROM events
          WHERE (commit_id, position) > (?::xid8, ?)
            AND commit_id < pg_snapshot_xmin(pg_current_snapshot())
          ORDER BY events.commit_id, events.position LIMIT ?`,
        [after.commit, after.position, limit],
      );
    };
    const result = context ? await page(context) : await this.db.knex.transaction(page);
    return toRecordedAll(rawRows<EventRow>(this.db, result));
  }

  async head(): Promise<Cursor> {
    if (this.db.engine === 'mysql') {
      const row = await this.db.knex('events').max({ position: 'position' }).first();
      return row?.position ? { commit: '0', position: Number(row.position) } : START;
    }
    const result = await this.db.knex.raw(
      `SELECT commit_id::text AS commit_id, position FROM events
        WHERE commit_id < pg_snapshot_xmin(pg_current_snapshot())
        ORDER BY events.commit_id DESC, events.position DESC LIMIT 1`,
    );
    const row = rawRows<EventRow>(this.db, result)[0];
    return row ? { commit: String(row.commit_id), position: Number(row.position) } : START;
  }

  /** Events newer than a cursor (for health lag figures): bounded count. */
  async countAfter(after: Cursor, bound = 1_000_000): Promise<number> {
    if (this.db.engine === 'mysql') {
      const row = await this.db.knex('events').count({ n: '*' }).where('position', '>', after.position).first();
      return Math.min(Number(row?.n ?? 0), bound);
    }
    const result = await this.db.knex.raw(
      `SELECT count(*) AS n FROM (SELECT 1 FROM events
         WHERE (commit_id, position) > (?::xid8, ?)
           AND commit_id < pg_snapshot_xmin(pg_current_snapshot()) LIMIT ?) t`,
      [after.commit, after.position, bound],
    );
    return Number(rawRows<{ n: number }>(this.db, result)[0].n);
  }

  async close(): Promise<void> {
    // The database is owned by the composition root, which closes it.
  }

  /** The cursor's columns and the named others (default: all). */
  private columns(others: readonly string[] = ['event_id', 'stream_id', 'revision', 'type', 'data', 'metadata']): string[] {
    const commit = this.db.engine === 'mysql' ? "'0' AS commit_id" : 'commit_id::text AS commit_id';
    return ['position', this.db.knex.raw(commit) as unknown as string, ...others];
  }

  private async currentRevisions(q: Knex | Knex.Transaction, streams: string[]): Promise<Map<string, number>> {
    const result = new Map<string, number>();
    const unique = [...new Set(streams)];
    for (let i = 0; i < unique.length; i += 5000) {
      const chunk = unique.slice(i, i + 5000);
      const rows: { stream_id: string; rev: number | string | null }[] = this.db.isPostgres
        ? rawRows(this.db, await q.raw('SELECT stream_id, max(revision) AS rev FROM events WHERE stream_id = ANY(?::varchar[]) GROUP BY stream_id', [chunk as never]))
        : await q('events').select('stream_id').max({ rev: 'revision' }).whereIn('stream_id', chunk).groupBy('stream_id');
      for (const r of rows) if (r.rev !== null) result.set(r.stream_id, Number(r.rev));
    }
    return result;
  }

  /**
   * Idempotence per stream, as EventStoreDB keeps it: an append is already done when its events,
   * in order, are where it would have put them: right after its expected revision, or, with 'any',
   * at the stream's end (so with 'any' only a retry of the stream's latest append is recognised).
   * Answers the result of the last append when every one of them is done, else null. There is no
   * global index on event ids: a check per stream costs only the revisions it names.
   */
  private async alreadyAppended(q: Knex | Knex.Transaction, appends: ReadonlyArray<AppendPlan>, current: ReadonlyMap<string, number>): Promise<AppendResult | null> {
    let last: EventRow | undefined;
    for (const append of appends) {
      const ids = append.events ? append.events.map((e) => e.id) : append.rows!.map((r) => r.event_id);
      const actual = current.get(append.stream);
      if (actual === undefined) return null;
      const after = append.expectedRevision === 'any' ? actual - ids.length : append.expectedRevision === 'no_stream' ? -1 : Number(append.expectedRevision);
      if (after < -1 || after + ids.length > actual) return null;
      const rows: EventRow[] = await q('events').select(this.columns(['event_id', 'revision']))
        .where('stream_id', append.stream).andWhere('revision', '>', after).andWhere('revision', '<=', after + ids.length)
        .orderBy('revision', 'asc');
      if (rows.length !== ids.length || rows.some((r, i) => String(r.event_id).toLowerCase() !== ids[i].toLowerCase())) return null;
      last = rows[rows.length - 1];
    }
    return { nextRevision: Number(last!.revision), cursor: cursorOf(last!) };
  }

  /**
   * Every event of the commit, in order, in few statements; answers the cursor of the last. Events
   * are serialised chunk by chunk, so a 50,000-event import never holds all their text at once.
   */
  private async insertRows(trx: Knex.Transaction, planned: Planned[]): Promise<AppendResult> {
    let last: EventRow | undefined;
    const chunkSize = this.db.isPostgres ? 5000 : INSERT_CHUNK;
    for (let i = 0; i < planned.length;) {
      const chunk: Array<SerialisedRow & { revision: number }> = [];
      let text = 0;
      while (i < planned.length && chunk.length < chunkSize && text < INSERT_CHUNK_TEXT) {
        const p = planned[i++];
        const row = { ...serialise(p.stream, p.event), revision: p.revision };
        text += row.data.length + row.metadata.length;
        chunk.push(row);
      }
      if (this.db.isPostgres) {
        // Columns as separated texts, split by PostgreSQL in C (see joinColumn).
        const result = await trx.raw(
          `WITH ins AS (
             INSERT INTO events (event_id, stream_id, revision, type, data, metadata)
             SELECT v.event_id::uuid, v.stream_id, v.revision::int, v.type, v.data, v.metadata
               FROM ROWS FROM (${split('?')}, ${split('?')}, ${split('?')}, ${split('?')}, ${split('?')}, ${split('?')}) AS v(event_id, stream_id, revision, type, data, metadata)
             RETURNING position, revision, commit_id)
           SELECT position, revision, commit_id::text AS commit_id FROM ins ORDER BY position DESC LIMIT 1`,
          [joinColumn(chunk, 'event_id'), joinColumn(chunk, 'stream_id'), chunk.map((r) => r.revision).join(SEPARATOR), joinColumn(chunk, 'type'), joinColumnBytes(chunk, 'data'), joinColumnBytes(chunk, 'metadata')],
        );
        last = rawRows<EventRow>(this.db, result)[0];
      } else {
        await trx('events').insert(chunk);
      }
    }
    const tail = planned[planned.length - 1];
    if (!this.db.isPostgres) last = await trx('events').select(this.columns()).where({ stream_id: tail.stream, revision: tail.revision }).first();
    return { nextRevision: tail.revision, cursor: cursorOf(last!) };
  }
}

interface Planned { stream: string; event: NewEvent; revision: number }

/** An append as the store handles it: its events, or their serialised rows. */
type AppendPlan = { stream: string; expectedRevision: ExpectedRevision } & ({ events: NewEvent[]; rows?: undefined } | { events?: undefined; rows: SerialisedRow[] });

/** How often an 'any' append that keeps losing the race for the next revision is tried. */
const ANY_ATTEMPTS = 20;

/** Only 'any' appends lost a race for a revision: appendMany tries again (up to ANY_ATTEMPTS). */
class RevisionRaceLost extends Error {
  constructor(readonly refusal: WrongExpectedRevision) {
    super(refusal.message);
  }
}

/**
 * Columns travel to PostgreSQL as one text each, values separated by ASCII's record separator and
 * split in C by string_to_table: the driver neither escapes array literals nor does the server
 * parse JSON. JSON.stringify never writes a raw control character (it escapes them), ids are
 * UUIDs, and serialise() refuses a stream or type holding one, so the separator is unambiguous.
 */
const SEPARATOR = '\u001e';
const SEPARATOR_BYTE = SEPARATOR.charCodeAt(0);
/** The SQL that splits one separated parameter (`?` for knex, `$n` for a named statement). */
const split = (parameter: string) => `string_to_table(${parameter}::text, E'\\x${SEPARATOR_BYTE.toString(16)}')`;

/**
 * The same as UTF-8 bytes, for the long columns (data, metadata): written straight into one
 * Buffer, which the driver sends as it is (a text parameter's binary form is its bytes). Joined
 * as a string, a batch's data (hundreds of KB) became one flat string in V8's large-object space,
 * freed only by full collections: garbage collection was the writer's largest cost.
 */
function joinColumnBytes(rows: ReadonlyArray<Pick<SerialisedRow, 'data' | 'metadata'>>, column: 'data' | 'metadata'): Buffer {
  let size = rows.length - 1;
  for (let i = 0; i < rows.length; i++) size += Buffer.byteLength(rows[i][column]);
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (let i = 0; i < rows.length; i++) {
    if (i > 0) out[at++] = SEPARATOR_BYTE;
    at += out.write(rows[i][column], at);
  }
  return out;
}

function joinColumn<K extends keyof SerialisedRow>(rows: ReadonlyArray<Pick<SerialisedRow, K>>, column: K): string {
  let out = '';
  for (let i = 0; i < rows.length; i++) out += (i === 0 ? '' : SEPARATOR) + rows[i][column];
  return out;
}

/**
 * One stream's append in one statement (see appendInOneStatement): $1 stream, $2..$4 the events'
 * ids, types and data as separated texts (joinColumn), $5 the metadata once when the events share
 * it (a command's events do), else $6 each event's. `ok` holds the stream's last revision when the
 * append may go ahead (the guard). Only the last row comes back.
 */
const appendOneStream = (guard: string) => `WITH cur AS (SELECT coalesce(max(revision), -1) AS rev FROM events WHERE stream_id = $1::varchar),
  ok AS (SELECT cur.rev FROM cur WHERE ${guard}),
  ins AS (
    INSERT INTO events (event_id, stream_id, revision, type, data, metadata)
    SELECT v.event_id::uuid, $1::varchar, ok.rev + v.ord::int, v.type, v.data, coalesce($5::text, v.meta)
      FROM ok, ROWS FROM (${split('$2')}, ${split('$3')}, ${split('$4')}, ${split('$6')})
           WITH ORDINALITY AS v(event_id, type, data, meta, ord)
    RETURNING position, revision, commit_id)
  SELECT position, revision, commit_id::text AS commit_id FROM ins ORDER BY position DESC LIMIT 1`;

/** $7: the expected last revision (-1 for no stream). */
const APPEND_EXPECTED = appendOneStream('cur.rev = $7::int');
/**
 * 'any': no expectation, but a retry must not append twice, so the first event's id ($8) must not
 * be among the stream's last $7 events (the number appended; see alreadyAppended).
 */
const APPEND_ANY = appendOneStream('NOT EXISTS (SELECT 1 FROM events t WHERE t.stream_id = $1::varchar AND t.revision > cur.rev - $7::int AND t.event_id = $8::uuid)');

interface SerialisedRow {
  event_id: string;
  stream_id: string;
  type: string;
  data: string;
  metadata: string;
}

/** Events of one command share one metadata object: written once as text. */
const metadataText = new WeakMap<object, string>();

function serialise(stream: string, event: NewEvent): SerialisedRow {
  refuseSeparator('Event type', event.type);
  const data = JSON.stringify(event.data ?? null);
  // Characters bound bytes from below: only long texts need counting.
  if (data.length * 3 > MAX_EVENT_BYTES && Buffer.byteLength(data) > MAX_EVENT_BYTES) {
    throw new Error(`Event ${event.type} on ${stream} is ${Buffer.byteLength(data)} bytes; split it (limit ${MAX_EVENT_BYTES}).`);
  }
  let metadata = metadataText.get(event.metadata);
  if (metadata === undefined) {
    metadata = JSON.stringify(event.metadata);
    metadataText.set(event.metadata, metadata);
  }
  return { event_id: event.id, stream_id: stream, type: event.type, data, metadata };
}

function refuseSeparator(what: string, name: string): void {
  if (name.includes(SEPARATOR)) throw new Error(`${what} names hold no control characters: ${JSON.stringify(name)}`);
}

/** The first append whose expected revision the stream's current one does not meet. */
function firstRefused<A extends { stream: string; expectedRevision: ExpectedRevision }>(appends: readonly A[], current: ReadonlyMap<string, number>): A | undefined {
  return appends.find((a) => !expectationHolds(a.expectedRevision, current.get(a.stream) ?? null));
}

function expectationHolds(expected: ExpectedRevision, actual: number | null): boolean {
  return expected === 'any' || (expected === 'no_stream' ? actual === null : actual === expected);
}

function cursorOf(row: Pick<EventRow, 'commit_id' | 'position'>): Cursor {
  return { commit: String(row.commit_id ?? '0'), position: Number(row.position) };
}

/**
 * Rows as recorded events. The events of one command share their metadata text, so a page parses
 * it once per run of equal texts and its events share the object (events are read-only). Each
 * keeps the texts as stored, which the audit chain hashes (one string per run for the metadata).
 */
function toRecordedAll<T>(rows: readonly EventRow[]): RecordedEvent<T>[] {
  const out = new Array<RecordedEvent<T>>(rows.length);
  let text: string | undefined;
  let metadata: EventMetadata | undefined;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (row.metadata !== text) {
      text = row.metadata;
      metadata = JSON.parse(text) as EventMetadata;
    }
    out[i] = {
      id: row.event_id,
      stream: row.stream_id,
      revision: Number(row.revision),
      type: row.type,
      data: JSON.parse(row.data) as T,
      metadata: metadata!,
      cursor: cursorOf(row),
      storedData: row.data,
      storedMetadata: text,
    };
  }
  return out;
}

export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errno?: number };
  return e?.code === '23505' || e?.code === 'ER_DUP_ENTRY' || e?.errno === 1062;
}
