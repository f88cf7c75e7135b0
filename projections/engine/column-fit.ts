import { Knex } from 'knex';
import { Engine } from '../../infrastructure/db/database';

/**
 * Values fit their columns (ADR 0011): a read model takes whatever the event log holds. The log
 * accepts any JSON string (old events, other writers, EventStoreDB), but PostgreSQL's text refuses
 * U+0000, neither engine takes a lone UTF-16 surrogate as it is, and a strict engine refuses a
 * string longer than its column. Every text value is therefore cleaned (U+0000 and lone
 * surrogates become U+FFFD) and cut to its column's declared width before it is written.
 */

/** How much text a column holds: code points (varchar(n)) and UTF-8 bytes (MySQL's TEXT types); null: no bound that matters. */
export interface TextLimit {
  chars: number | null;
  bytes: number | null;
}

export interface TableShape {
  /** Column name -> SQL type as information_schema names it (the casts of the PostgreSQL row path). */
  types: Map<string, string>;
  /** Column name -> its bound, for the text columns that have one. */
  limits: Map<string, TextLimit>;
}

type Row = Record<string, unknown>;

const REPLACEMENT = '\ufffd';

// ES2024 string methods (Node 20): native, a few nanoseconds on the strings of a replay.
declare global {
  interface String {
    isWellFormed(): boolean;
    toWellFormed(): string;
  }
}

/** U+0000 and lone surrogates replaced by U+FFFD; anything else as it is (the same string when nothing changes). */
export function cleanText(text: string): string {
  const wellFormed = text.isWellFormed();
  if (wellFormed && !text.includes('\u0000')) return text;
  // toWellFormed puts U+FFFD for each lone surrogate and keeps pairs.
  return (wellFormed ? text : text.toWellFormed()).replaceAll('\u0000', REPLACEMENT);
}

/** The text cleaned and cut to the limit, never inside a surrogate pair. */
export function fitText(text: string, limit: TextLimit | undefined): string {
  let s = cleanText(text);
  if (!limit) return s;
  // A string's code points never outnumber its UTF-16 units: most strings end the check here.
  if (limit.chars !== null && s.length > limit.chars) s = firstCodePoints(s, limit.chars);
  // UTF-8 takes at most 3 bytes per UTF-16 unit (4 per pair of 2): count only when it could matter.
  if (limit.bytes !== null && s.length * 3 > limit.bytes && Buffer.byteLength(s, 'utf8') > limit.bytes) s = firstBytes(s, limit.bytes);
  return s;
}

/** The row with every string value fitted to its column: the same object when nothing changes (most rows). */
export function fitRow<T extends Row>(row: T, limits: ReadonlyMap<string, TextLimit>): T {
  let copy: Row | null = null;
  for (const key in row) {
    const value = row[key];
    if (typeof value !== 'string') continue;
    const fitted = fitText(value, limits.get(key));
    if (fitted !== value) {
      copy ??= { ...row };
      copy[key] = fitted;
    }
  }
  return (copy ?? row) as T;
}

function firstCodePoints(s: string, count: number): string {
  let i = 0;
  for (let n = 0; n < count && i < s.length; n++) i += isPairAt(s, i) ? 2 : 1;
  return s.slice(0, i);
}

function firstBytes(s: string, bytes: number): string {
  let i = 0;
  let used = 0;
  while (i < s.length) {
    const pair = isPairAt(s, i);
    const c = s.charCodeAt(i);
    const size = pair ? 4 : c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
    if (used + size > bytes) break;
    used += size;
    i += pair ? 2 : 1;
  }
  return s.slice(0, i);
}

function isPairAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 0xd800 || c > 0xdbff || i + 1 >= s.length) return false;
  const next = s.charCodeAt(i + 1);
  return next >= 0xdc00 && next <= 0xdfff;
}

const shapes = new Map<string, TableShape>();

/**
 * A table's column types and text bounds, read from information_schema once per process and engine
 * family: the schema is the same for every database of a version, and the database itself is the
 * one source of its widths (MySQL's TEXT holds 65,535 bytes, PostgreSQL's text has no bound).
 * Read on the caller's transaction: PGlite has one connection.
 */
export async function tableShape(trx: Knex | Knex.Transaction, engine: Engine, table: string): Promise<TableShape> {
  const key = `${engine === 'mysql' ? 'mysql' : 'postgres'}:${table}`;
  let shape = shapes.get(key);
  if (!shape) {
    shape = engine === 'mysql' ? await mysqlShape(trx, table) : await postgresShape(trx, table);
    if (shape.types.size === 0) throw new Error(`RowWriter: no table ${table}`);
    shapes.set(key, shape);
  }
  return shape;
}

interface ColumnRow { name: string; type: string; chars: number | string | null; bytes: number | string | null }

async function postgresShape(trx: Knex | Knex.Transaction, table: string): Promise<TableShape> {
  const result = await trx.raw(
    `SELECT column_name AS name, data_type AS type, character_maximum_length AS chars FROM information_schema.columns WHERE table_name = ? AND table_schema = current_schema()`, [table],
  );
  const rows = result.rows as ColumnRow[];
  const limits = new Map<string, TextLimit>();
  // varchar(n) and char(n) hold n code points; text has no bound a value could reach (1 GB).
  for (const r of rows) if (r.chars !== null) limits.set(r.name, { chars: Number(r.chars), bytes: null });
  return { types: new Map(rows.map((r) => [r.name, r.type === 'USER-DEFINED' ? 'text' : r.type])), limits };
}

const MYSQL_TEXT_TYPES = new Set(['tinytext', 'text', 'mediumtext', 'longtext']);

async function mysqlShape(trx: Knex | Knex.Transaction, table: string): Promise<TableShape> {
  const result = await trx.raw(
    `SELECT column_name AS name, data_type AS type, character_maximum_length AS chars, character_octet_length AS bytes FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?`, [table],
  );
  const rows = (result as [ColumnRow[]])[0];
  const limits = new Map<string, TextLimit>();
  for (const r of rows) {
    const type = String(r.type).toLowerCase();
    // VARCHAR(n) counts characters; the TEXT types count bytes (TEXT: 65,535).
    if (MYSQL_TEXT_TYPES.has(type)) limits.set(r.name, { chars: null, bytes: Number(r.bytes) });
    else if ((type === 'varchar' || type === 'char') && r.chars !== null) limits.set(r.name, { chars: Number(r.chars), bytes: null });
  }
  return { types: new Map(rows.map((r) => [r.name, r.type])), limits };
}
