import { Knex } from 'knex';
import {
  AppendResult, Cursor, EventStore, ExpectedRevision, NewEvent, RecordedEvent, START, StreamAppend, WrongExpectedRevision,
} from '../../application/ports/event-store';
import { Database, rawRows } from '../db/database';
import { pgNamedQuery } from '../db/prepared';

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
    if (this.db.isPostgres && nonEmpty.length === 1 && nonEmpty[0].events.length <= INSERT_CHUNK && !this.options.beforeCommit) {
      const [one] = nonEmpty;
      return this.appendInOneStatement({ ...one, rows: one.events.map((e) => serialise(one.stream, e)) });
    }
    try {
      return await this.db.knex.transaction(async (trx) => {
        if (this.db.engine === 'mysql') await trx.raw('SELECT id FROM event_append_lock WHERE id = 1 FOR UPDATE');
        // Every read before the first write (see class comment).
        const current = await this.currentRevisions(trx, nonEmpty.map((a) => a.stream));
        const idempotent = await this.alreadyAppended(trx, nonEmpty);
        if (idempotent) return idempotent;
        const planned: Planned[] = [];
        for (const append of nonEmpty) {
          const actual = current.get(append.stream) ?? null;
          checkExpected(append.stream, append.expectedRevision, actual);
          const first = (actual ?? -1) + 1;
          append.events.forEach((event, i) => planned.push({ stream: append.stream, event, revision: first + i }));
        }
        const last = await this.insertRows(trx, planned);
        if (this.options.beforeCommit) await this.options.beforeCommit(nonEmpty.map((a) => a.stream));
        return last;
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        const recheck = await this.alreadyAppended(this.db.knex, nonEmpty);
        if (recheck) return recheck;
        const streams = nonEmpty.map((a) => a.stream);
        const actual = await this.currentRevisions(this.db.knex, streams);
        const clash = nonEmpty[0];
        throw new WrongExpectedRevision(clash.stream, clash.expectedRevision, actual.get(clash.stream) ?? null);
      }
      throw error;
    }
  }

  /**
   * The common case on PostgreSQL: one stream, one statement, one round trip. The revision check
   * and the insert share the statement's snapshot, read before the transaction id is assigned at
   * the insert, so the stream-order guarantee of the class comment holds. A racing append to the
   * same revision fails on the unique key and is reported as a wrong expected revision.
   */
  private async appendInOneStatement(append: { stream: string; expectedRevision: ExpectedRevision; rows: SerialisedRow[] }): Promise<AppendResult> {
    // 'any' passes null: no check. Columns go as arrays (unnest): the statement text never
    // changes, so PostgreSQL keeps it prepared per connection (no parse or plan per append).
    const expected = append.expectedRevision === 'any' ? null : append.expectedRevision === 'no_stream' ? -1 : Number(append.expectedRevision);
    const shared = append.rows.every((r) => r.metadata === append.rows[0].metadata) ? append.rows[0].metadata : null;
    const values = [
      append.stream, append.rows.map((r) => r.event_id), append.rows.map((r) => r.type),
      `[${append.rows.map((r) => r.data).join(',')}]`, shared, shared === null ? `[${append.rows.map((r) => r.metadata).join(',')}]` : '[]', expected,
    ];
    let rows: EventRow[];
    try {
      rows = await this.query<EventRow>('vigil_append_one_stream_v2', APPEND_ONE_STREAM, values);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      rows = [];
    }
    if (rows.length === 0) {
      const again = await this.alreadyAppended(this.db.knex, [append]);
      if (again) return again;
      const actual = (await this.currentRevisions(this.db.knex, [append.stream])).get(append.stream) ?? null;
      throw new WrongExpectedRevision(append.stream, append.expectedRevision, actual);
    }
    const [last] = rows;
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
    return rows.map((r) => toRecorded<T>(r));
  }

  async readAll(after: Cursor, limit: number, context?: Knex.Transaction): Promise<RecordedEvent[]> {
    const q = context ?? this.db.knex;
    if (this.db.engine === 'mysql') {
      const rows: EventRow[] = await q('events').select(this.columns()).where('position', '>', after.position)
        .orderBy('position', 'asc').limit(limit);
      return rows.map((r) => toRecorded(r));
    }
    // Without fresh statistics (right after a bulk append) the planner may pick a scan
    // and a sort of every later row for each page; the ordered index scan is always right here.
    const page = async (t: Knex | Knex.Transaction) => {
      await t.raw('SET LOCAL enable_sort = off');
      return t.raw(
        `SELECT ${this.columns().join(', ')} FROM events
          WHERE (commit_id, position) > (?::xid8, ?)
            AND commit_id < pg_snapshot_xmin(pg_current_snapshot())
          ORDER BY events.commit_id, events.position LIMIT ?`,
        [after.commit, after.position, limit],
      );
    };
    const result = context ? await page(context) : await this.db.knex.transaction(page);
    return rawRows<EventRow>(this.db, result).map((r) => toRecorded(r));
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

  private columns(): string[] {
    const commit = this.db.engine === 'mysql' ? "'0' AS commit_id" : 'commit_id::text AS commit_id';
    return ['position', this.db.knex.raw(commit) as unknown as string, 'event_id', 'stream_id', 'revision', 'type', 'data', 'metadata'];
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

  /** Re-appending the same event ids to the same streams succeeds without writing (idempotence). */
  private async alreadyAppended(q: Knex | Knex.Transaction, appends: ReadonlyArray<{ stream: string; events?: readonly NewEvent[]; rows?: readonly SerialisedRow[] }>): Promise<AppendResult | null> {
    const wanted = appends.flatMap((a) => (a.events ? a.events.map((e) => ({ id: e.id, stream: a.stream })) : a.rows!.map((r) => ({ id: r.event_id, stream: a.stream }))));
    const found: EventRow[] = await q('events').select(this.columns()).whereIn('event_id', [wanted[0].id]);
    if (found.length === 0) return null;
    const byId = new Map<string, EventRow>();
    for (let i = 0; i < wanted.length; i += 5000) {
      const rows: EventRow[] = await q('events').select(this.columns()).whereIn('event_id', wanted.slice(i, i + 5000).map((w) => w.id));
      for (const r of rows) byId.set(String(r.event_id), r);
    }
    if (!wanted.every((w) => byId.get(w.id)?.stream_id === w.stream)) return null;
    const last = byId.get(wanted[wanted.length - 1].id)!;
    return { nextRevision: last.revision, cursor: cursorOf(last) };
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
        const result = await trx.raw(
          `WITH ins AS (
             INSERT INTO events (event_id, stream_id, revision, type, data, metadata)
             SELECT * FROM unnest(?::uuid[], ?::varchar[], ?::int[], ?::varchar[], ?::text[], ?::text[])
             RETURNING position, revision, commit_id)
           SELECT position, revision, commit_id::text AS commit_id FROM ins ORDER BY position DESC LIMIT 1`,
          [chunk.map((r) => r.event_id), chunk.map((r) => r.stream_id), chunk.map((r) => r.revision), chunk.map((r) => r.type), chunk.map((r) => r.data), chunk.map((r) => r.metadata)] as never,
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

/**
 * One stream's append in one statement (see appendInOneStatement). Columns travel as few, cheap
 * parameters: ids and types as arrays, the data of all events as ONE JSON array whose elements
 * PostgreSQL splits in C (json keeps each element's text exactly as sent), and the metadata once
 * when the events share it (a command's events do) instead of once per event. Only the last row
 * comes back. For 500 events this halves what the driver escapes and sends.
 */
const APPEND_ONE_STREAM = `WITH cur AS (SELECT coalesce(max(revision), -1) AS rev FROM events WHERE stream_id = $1::varchar),
  ins AS (
    INSERT INTO events (event_id, stream_id, revision, type, data, metadata)
    SELECT v.event_id, $1::varchar, cur.rev + v.ord::int, v.type, v.data::text, coalesce($5::text, v.meta::text)
      FROM cur, ROWS FROM (unnest($2::uuid[]), unnest($3::varchar[]), json_array_elements($4::json), json_array_elements($6::json))
           WITH ORDINALITY AS v(event_id, type, data, meta, ord)
     WHERE $7::int IS NULL OR cur.rev = $7::int
    RETURNING position, revision, commit_id)
  SELECT position, revision, commit_id::text AS commit_id FROM ins ORDER BY position DESC LIMIT 1`;

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

function checkExpected(stream: string, expected: ExpectedRevision, actual: number | null): void {
  if (expected === 'any') return;
  if (expected === 'no_stream' ? actual !== null : actual !== expected) throw new WrongExpectedRevision(stream, expected, actual);
}

function cursorOf(row: Pick<EventRow, 'commit_id' | 'position'>): Cursor {
  return { commit: String(row.commit_id ?? '0'), position: Number(row.position) };
}

function toRecorded<T>(row: EventRow): RecordedEvent<T> {
  return {
    id: row.event_id,
    stream: row.stream_id,
    revision: Number(row.revision),
    type: row.type,
    data: JSON.parse(row.data) as T,
    metadata: JSON.parse(row.metadata),
    cursor: cursorOf(row),
  };
}

export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; errno?: number };
  return e?.code === '23505' || e?.code === 'ER_DUP_ENTRY' || e?.errno === 1062;
}
