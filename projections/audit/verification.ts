import { Knex } from 'knex';
import { walkIndexOrder } from '../../infrastructure/db/index-order';
import type { ChainVerification } from '../../application/audit/ports';
import { Database, rawRows } from '../../infrastructure/db/database';
import { AuditEntry, ChainedFields, entryHash, GENESIS_HASH, LEFT_OUT, storedTextHash } from '../../domain/audit/chain';

/** What a verification finds: the port's shape (application/audit/ports.ts), which the background verifier reads. */
export type AuditVerification = ChainVerification;

/** A row of the `events` table, the columns the chain covers. */
interface EventRow {
  position: number | string;
  commit_id: string;
  event_id: string;
  stream_id: string;
  revision: number | string;
  type: string;
  metadata: string;
  data: string;
}

const ENTRY_PAGE = 2000;
const EVENT_PAGE = 500;
const LEFT_OUT_TYPES = [...LEFT_OUT];

/**
 * Recomputes the chain from the `events` table and compares it with the stored one (scheme 3,
 * ADR 0012). The events are walked as the projection applied them (cursor order, left-out types
 * skipped, up to the audit checkpoint) beside the entries in seq order: entry n must stand for
 * the n-th of them and its hash must be the one recomputed from that row (never from the entry's
 * own copies). So a changed event envelope, a removed, inserted or reordered event, a changed,
 * removed or reordered entry and missing newest entries all show; what cannot show is in the ADR.
 * One repeatable-read transaction: checkpoint, entries and events are one consistent state.
 */
export async function verifyAuditChain(db: Database): Promise<AuditVerification> {
  return db.knex.transaction((trx) => new ChainWalk(db, trx).run(), { isolationLevel: 'repeatable read' });
}

class ChainWalk {
  private metadataText: string | undefined;
  private metadataFields: { hash: string; actor: unknown; address: unknown; at: unknown } | undefined;

  constructor(private readonly db: Database, private readonly trx: Knex.Transaction) {}

  async run(): Promise<AuditVerification> {
    const until = await this.checkpoint();
    const entries = new Pages<AuditEntry>((last) => this.trx('audit_log').where('seq', '>', last ? Number(last.seq) : 0).orderBy('seq').limit(ENTRY_PAGE), ENTRY_PAGE);
    const events = new Pages<EventRow>((last) => this.eventsAfter(last, until), EVENT_PAGE);
    if (this.db.isPostgres) await walkIndexOrder(this.trx); // the (commit_id, position) index is the order
    let prev = GENESIS_HASH;
    let n = 0;
    let next = await events.next();
    for (;;) {
      const entry = await entries.next();
      if (entry === undefined) {
        // The log holds chained events past the chain's end: its newest entries were removed.
        return next === undefined ? valid(n) : broken(n, n + 1, next.position, `entry ${n + 1} is missing`, null);
      }
      n += 1;
      const seq = Number(entry.seq);
      const position = Number(entry.position);
      if (seq !== n) return broken(n, seq, position, `entry ${n} is missing`, null);
      if (entry.prev_hash !== prev) return broken(n, seq, position, 'the entry does not follow the one before it', ['prevHash']);
      const row = next !== undefined && next.event_id === entry.event_id ? next : await this.locate(entry);
      if (row === undefined) return broken(n, seq, position, 'the event it stands for is missing or changed', await this.atItsPosition(entry));
      const recomputed = this.chained(seq, row);
      const differs = this.compare(entry, row, recomputed);
      if (entryHash(prev, recomputed) !== entry.hash) {
        // The entry still matches its own hash: the event changed. Else the entry did.
        const entryIntact = entryHash(prev, chainedOf(entry)) === entry.hash;
        if (entryIntact && differs.length > 0) return broken(n, seq, position, 'the event it stands for is missing or changed', differs);
        return broken(n, seq, position, 'the entry was changed', differs.length > 0 ? differs : ['hash']);
      }
      // The hash holds for the event, but a copy in the entry was changed (a listing would lie).
      if (differs.length > 0) return broken(n, seq, position, 'the entry was changed', differs);
      // The entry's event is intact, yet the log holds a chained event before it that no entry
      // stands for: inserted, or a left-out type turned into a chained one.
      if (next !== undefined && row !== next) return broken(n, seq, Number(next.position), 'the log holds an event the chain does not have', null);
      prev = entry.hash;
      if (row === next) next = await events.next();
    }
  }

  /** Where the audit projection stands: events after it are not chained yet. */
  private async checkpoint(): Promise<{ commit: string; position: number }> {
    const row: { commit_id: string; position: number | string } | undefined = await this.trx('projection_checkpoints').select('commit_id', 'position').where({ name: 'audit' }).first();
    return { commit: String(row?.commit_id ?? '0'), position: Number(row?.position ?? 0) };
  }

  /** The chained events after `last`, up to `until`, in the order the projection read them. */
  private async eventsAfter(last: EventRow | undefined, until: { commit: string; position: number }): Promise<EventRow[]> {
    const left = LEFT_OUT_TYPES.map(() => '?').join(', ');
    if (this.db.engine === 'mysql') {
      return rawRows<EventRow>(this.db, await this.trx.raw(
        `SELECT ${this.columns()} FROM events WHERE position > ? AND position <= ? AND type NOT IN (${left}) ORDER BY position LIMIT ?`,
        [last ? Number(last.position) : 0, until.position, ...LEFT_OUT_TYPES, EVENT_PAGE],
      ));
    }
    return rawRows<EventRow>(this.db, await this.trx.raw(
      `SELECT ${this.columns()} FROM events
        WHERE (commit_id, position) > (?::xid8, ?) AND (commit_id, position) <= (?::xid8, ?) AND type NOT IN (${left})
        ORDER BY events.commit_id, events.position LIMIT ?`,
      [last ? last.commit_id : '0', last ? Number(last.position) : 0, until.commit, until.position, ...LEFT_OUT_TYPES, EVENT_PAGE],
    ));
  }

  /** The entry's event where it may have gone: at its position, else at its stream and revision. */
  private async locate(entry: AuditEntry): Promise<EventRow | undefined> {
    const atPosition = await this.eventWhere('position = ?', [Number(entry.position)]);
    if (atPosition?.event_id === entry.event_id) return atPosition;
    const inStream = await this.eventWhere('stream_id = ? AND revision = ?', [entry.stream_id, Number(entry.revision)]);
    return inStream?.event_id === entry.event_id ? inStream : undefined;
  }

  private async atItsPosition(entry: AuditEntry): Promise<string[] | null> {
    return (await this.eventWhere('position = ?', [Number(entry.position)])) ? ['eventId'] : null;
  }

  private async eventWhere(where: string, values: unknown[]): Promise<EventRow | undefined> {
    return rawRows<EventRow>(this.db, await this.trx.raw(`SELECT ${this.columns()} FROM events WHERE ${where}`, values as never))[0];
  }

  private columns(): string {
    const commit = this.db.engine === 'mysql' ? "'0' AS commit_id" : 'commit_id::text AS commit_id';
    const id = this.db.engine === 'mysql' ? 'event_id' : 'event_id::text AS event_id';
    return `position, ${commit}, ${id}, stream_id, revision, type, metadata, data`;
  }

  /** The fields the hash covers, from the event row as stored. */
  private chained(seq: number, row: EventRow): ChainedFields {
    return {
      seq, event_id: row.event_id, stream_id: row.stream_id, revision: Number(row.revision), position: Number(row.position), commit_id: String(row.commit_id),
      type: row.type, metadata_hash: this.metadata(row.metadata).hash, data_hash: storedTextHash(row.data),
    };
  }

  /** Which of the entry's fields and copies the event row (and what was recomputed from it) no longer matches. */
  private compare(entry: AuditEntry, row: EventRow, recomputed: ChainedFields): string[] {
    const out: string[] = [];
    if (recomputed.event_id !== entry.event_id) out.push('eventId');
    if (recomputed.stream_id !== entry.stream_id) out.push('stream');
    if (recomputed.revision !== Number(entry.revision)) out.push('revision');
    if (recomputed.position !== Number(entry.position)) out.push('position');
    if (recomputed.commit_id !== String(entry.commit_id)) out.push('commit');
    if (recomputed.type !== entry.type) out.push('type');
    const metadata = this.metadata(row.metadata);
    const copies = (['actor', 'address', 'at'] as const).filter((k) => !sameValue(metadata[k], entry[k]));
    // A changed metadata text names what changed in it when the entry's copies tell; equal texts
    // with unequal copies mean the entry's copies were changed.
    if (recomputed.metadata_hash !== entry.metadata_hash) out.push(...(copies.length > 0 ? copies.map((k) => `metadata.${k}`) : ['metadata']));
    else out.push(...copies);
    if (recomputed.data_hash !== entry.data_hash) out.push('data');
    return out;
  }

  /** A metadata text's hash and the fields the entry copies; a command's events share one text. */
  private metadata(text: string): { hash: string; actor: unknown; address: unknown; at: unknown } {
    if (text !== this.metadataText || this.metadataFields === undefined) {
      let parsed: Record<string, unknown> = {};
      try {
        parsed = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // Not JSON any more: its hash differs, which is what shows.
      }
      this.metadataText = text;
      this.metadataFields = { hash: storedTextHash(text), actor: parsed?.actor ?? null, address: parsed?.address ?? null, at: parsed?.at ?? null };
    }
    return this.metadataFields;
  }
}

/** The fields the hash covers, from the entry's own columns (is the entry as it was written?). */
function chainedOf(entry: AuditEntry): ChainedFields {
  return {
    seq: Number(entry.seq), event_id: String(entry.event_id), stream_id: entry.stream_id, revision: Number(entry.revision), position: Number(entry.position),
    commit_id: String(entry.commit_id), type: entry.type, metadata_hash: entry.metadata_hash, data_hash: entry.data_hash,
  };
}

function sameValue(stored: unknown, copy: unknown): boolean {
  if ((stored ?? null) === (copy ?? null)) return true;
  if (typeof stored === 'number' && copy !== null && Number(copy) === stored) return true;
  return typeof stored === 'string' && typeof copy === 'string' && fittedFrom(stored, copy);
}

/**
 * The entry's copy as the projection fitted it into its column (ADR 0011: U+0000 and lone
 * surrogates made U+FFFD, then cut). The copies are a convenience for the list's filters: the
 * metadata hash covers what the log holds.
 */
function fittedFrom(stored: string, copy: string): boolean {
  const clean = stored.toWellFormed().replaceAll('\u0000', '\ufffd');
  return clean === copy || (copy.length > 0 && clean.startsWith(copy));
}

function valid(entries: number): AuditVerification {
  return { valid: true, entries, brokenAt: null, brokenPosition: null, differs: null, reason: null };
}

function broken(entries: number, seq: number, position: number | string, reason: string, differs: string[] | null): AuditVerification {
  return { valid: false, entries, brokenAt: seq, brokenPosition: Number(position), differs, reason };
}

/** Rows read a page at a time, each page after the last row of the one before. */
class Pages<T> {
  private rows: T[] = [];
  private at = 0;
  private ended = false;

  constructor(private readonly fetch: (last: T | undefined) => Promise<T[]>, private readonly size: number) {}

  async next(): Promise<T | undefined> {
    if (this.at === this.rows.length) {
      if (this.ended) return undefined;
      const page = await this.fetch(this.rows[this.rows.length - 1]);
      this.ended = page.length < this.size;
      if (page.length === 0) return undefined;
      this.rows = page;
      this.at = 0;
    }
    return this.rows[this.at++];
  }
}
