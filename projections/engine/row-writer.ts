import { Knex } from 'knex';
import { Engine } from '../../infrastructure/db/database';
import { fitRow, fitText, tableShape, TableShape, TextLimit } from './column-fit';

type Row = Record<string, unknown>;

interface TableBuffer {
  /** Pending inserts by key (or insertion order when the table has no key given). */
  rows: Map<string, Row>;
  key: readonly string[] | null;
  upsert: boolean;
}

const CHUNK = 500;

/**
 * Writes of one projection batch, coalesced: consecutive inserts into a table become one
 * multi-row INSERT; an update or delete of a row still pending is applied in memory; anything
 * else flushes that table first, so the order of effects per table is kept. Replays are mostly
 * inserts, which is what makes a rebuild fast (ADR 0003).
 *
 * Every value written or compared goes in fitted to its column (column-fit.ts, ADR 0011): U+0000 and
 * lone surrogates replaced, cut to the declared width. Pending rows stay as the projection gave them
 * (their keys are the event's values) and are fitted when they go out.
 */
export class RowWriter {
  private readonly tables = new Map<string, TableBuffer>();
  private seq = 0;
  /** Tables this writer inserted rows into (a step's listeners hear which, after its commit). */
  readonly inserted = new Set<string>();

  constructor(readonly trx: Knex.Transaction, readonly engine: Engine) {}

  insert(table: string, row: Row, key: readonly string[] | null = ['id']): void {
    const buffer = this.buffer(table, key, false);
    buffer.rows.set(key ? keyOf(row, key) : `#${this.seq++}`, row);
    this.inserted.add(table);
  }

  /** Insert or replace by key (settings, last-known values). */
  upsert(table: string, row: Row, key: readonly string[]): void {
    const buffer = this.buffer(table, key, true);
    buffer.rows.set(keyOf(row, key), row);
  }

  async update(table: string, where: Row, changes: Row): Promise<void> {
    const pending = this.pendingRow(table, where);
    if (pending) {
      Object.assign(pending, changes);
      return;
    }
    await this.flushTable(table);
    const { limits } = await this.shape(table);
    // The row was stored fitted: it is found by the fitted values.
    await this.trx(table).where(fitRow(where, limits)).update(fitRow(changes, limits));
  }

  async delete(table: string, where: Row): Promise<void> {
    const buffer = this.tables.get(table);
    // A row still pending was never written: forgetting it is the delete.
    if (buffer?.key && sameColumns(Object.keys(where), buffer.key) && buffer.rows.delete(keyOf(where, buffer.key))) return;
    await this.flushTable(table);
    await this.trx(table).where(fitRow(where, (await this.shape(table)).limits)).del();
  }

  /**
   * The table's fitting, for a projection that must know a row as it will be stored before writing
   * it (the audit chain hashes its entries' stored fields; the scorecards keep the state they write).
   */
  async fitter(table: string): Promise<<T extends Row>(row: T) => T> {
    const { limits } = await this.shape(table);
    return (row) => fitRow(row, limits);
  }

  /** Runs arbitrary SQL after flushing the named tables. */
  async run<T>(tables: readonly string[], fn: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    for (const t of tables) await this.flushTable(t);
    return fn(this.trx);
  }

  async flush(): Promise<void> {
    for (const table of this.tables.keys()) await this.flushTable(table);
  }

  private buffer(table: string, key: readonly string[] | null, upsert: boolean): TableBuffer {
    let buffer = this.tables.get(table);
    if (!buffer || buffer.upsert !== upsert) {
      if (buffer) throw new Error(`RowWriter: ${table} mixes inserts and upserts in one batch; flush between them`);
      buffer = { rows: new Map(), key, upsert };
      this.tables.set(table, buffer);
    }
    return buffer;
  }

  private pendingRow(table: string, where: Row): Row | undefined {
    const buffer = this.tables.get(table);
    if (!buffer?.key || !sameColumns(Object.keys(where), buffer.key)) return undefined;
    return buffer.rows.get(keyOf(where, buffer.key));
  }

  private async flushTable(table: string): Promise<void> {
    const buffer = this.tables.get(table);
    if (!buffer || buffer.rows.size === 0) {
      this.tables.delete(table);
      return;
    }
    const rows = [...buffer.rows.values()];
    this.tables.delete(table);
    if (this.engine === 'mysql') {
      const { limits } = await this.shape(table);
      for (let i = 0; i < rows.length; i += CHUNK) {
        const chunk = rows.slice(i, i + CHUNK).map((row) => fitRow(row, limits));
        // knex writes ON DUPLICATE KEY UPDATE for the upserts.
        await (buffer.upsert ? this.trx(table).insert(chunk).onConflict(buffer.key as string[]).merge() : this.trx(table).insert(chunk));
      }
      return;
    }
    await this.insertByColumns(table, rows, buffer.upsert ? buffer.key : null);
  }

  private shape(table: string): Promise<TableShape> {
    return tableShape(this.trx, this.engine, table);
  }

  /**
   * PostgreSQL: the chunk's rows as ONE JSON text, split into typed columns by json_to_recordset
   * in the server, a single bind parameter whatever the row count. JSON.stringify is native and
   * PostgreSQL parses JSON in C; the earlier one-array-per-column form spent most of a rebuild's
   * writing time in the driver escaping each string into an array literal.
   */
  private async insertByColumns(table: string, rows: Row[], conflictKey: readonly string[] | null): Promise<void> {
    const { types, limits } = await this.shape(table);
    const columns = columnsOf(rows);
    for (const c of columns) if (!types.has(c)) throw new Error(`RowWriter: ${table} has no column ${c}`);
    const onConflict = conflictKey
      ? ` ON CONFLICT (${conflictKey.map(quote).join(', ')}) DO UPDATE SET ${columns.filter((c) => !conflictKey.includes(c)).map((c) => `${quote(c)} = EXCLUDED.${quote(c)}`).join(', ')}`
      : '';
    const list = columns.map(quote).join(', ');
    const record = columns.map((c) => `${quote(c)} ${types.get(c)}`).join(', ');
    for (let i = 0; i < rows.length; i += BIG_CHUNK) {
      const json = JSON.stringify(rows.slice(i, i + BIG_CHUNK).map((row) => forJson(row, limits)));
      await this.trx.raw(`INSERT INTO ${quote(table)} (${list}) SELECT ${list} FROM json_to_recordset(?::json) AS x(${record})${onConflict}`, [json]);
    }
  }
}

/**
 * A row for insertByColumns' JSON, in one pass: an object or array value belongs to a text column
 * holding JSON, so it travels as a string; a string is fitted to its column (json_to_recordset
 * refuses \u0000 and lone surrogates in text, INSERT a value longer than a varchar). Rows needing
 * neither (most) go as they are; a replacer function would call back into JavaScript for every
 * value and lose most of what native JSON.stringify gains.
 */
function forJson(row: Row, limits: ReadonlyMap<string, TextLimit>): Row {
  let copy: Row | null = null;
  for (const key in row) {
    const value = row[key];
    let text: string;
    if (typeof value === 'string') text = value;
    else if (value !== null && typeof value === 'object' && !(value instanceof Date)) text = JSON.stringify(value);
    else continue;
    const fitted = fitText(text, limits.get(key));
    if (fitted !== value) {
      copy ??= { ...row };
      copy[key] = fitted;
    }
  }
  return copy ?? row;
}

/** Every column any row names, in first-seen order (rows of a table mostly name the same ones). */
function columnsOf(rows: readonly Row[]): string[] {
  const seen = new Set<string>();
  for (const row of rows) for (const key in row) if (!seen.has(key)) seen.add(key);
  return [...seen];
}

const BIG_CHUNK = 5000;

function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}

function keyOf(row: Row, key: readonly string[]): string {
  return key.map((k) => String(row[k])).join('\u0000');
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((c) => b.includes(c));
}
