import { Database } from '../../infrastructure/db/database';
import { AuditEntry, entryHash, GENESIS_HASH, storedDataHash } from '../../projections/audit';

/**
 * The audit log for auditors: entries in order, and a verification that walks the chain and
 * recomputes each entry's hash from the event it stands for (a changed event, a changed entry,
 * a removed or reordered entry all break it).
 */
export class AuditService {
  constructor(private readonly db: Database) {}

  async list(after: number, limit: number, filter: { type?: string; actor?: number; since?: string }) {
    const q = this.db.knex('audit_log').where('seq', '>', after).orderBy('seq').limit(limit + 1);
    if (filter.type) q.where('type', filter.type);
    if (filter.actor !== undefined) q.where('actor', filter.actor);
    if (filter.since) q.where('at', '>=', filter.since);
    const rows: AuditEntry[] = await q;
    const items = rows.slice(0, limit).map((r) => ({
      seq: Number(r.seq), eventId: String(r.event_id), position: Number(r.position), stream: r.stream_id, type: r.type,
      actor: r.actor === null ? null : Number(r.actor), address: r.address, at: r.at, dataHash: r.data_hash, prevHash: r.prev_hash, hash: r.hash,
    }));
    return { items, next: rows.length > limit ? items[items.length - 1].seq : null };
  }

  async verify(): Promise<{ valid: boolean; entries: number; brokenAt: number | null; reason: string | null }> {
    let prev = GENESIS_HASH;
    let after = 0;
    let entries = 0;
    for (;;) {
      const rows: AuditEntry[] = await this.db.knex('audit_log').where('seq', '>', after).orderBy('seq').limit(2000);
      if (rows.length === 0) return { valid: true, entries, brokenAt: null, reason: null };
      // By position, the log's key; the entry's event id must match too. The data is hashed as
      // stored, byte for byte, as an auditor's own SHA-256 tool would (any change shows).
      const events = new Map((await this.db.knex('events').select('position', 'event_id', 'data').whereIn('position', rows.map((r) => r.position)))
        .map((e: { position: string | number; event_id: string; data: string }) => [Number(e.position), e]));
      for (const r of rows) {
        entries++;
        const seq = Number(r.seq);
        if (seq !== entries) return { valid: false, entries, brokenAt: seq, reason: `entry ${entries} is missing` };
        if (r.prev_hash !== prev) return { valid: false, entries, brokenAt: seq, reason: 'the entry does not follow the one before it' };
        const event = events.get(Number(r.position));
        if (event === undefined || String(event.event_id) !== String(r.event_id) || storedDataHash(event.data) !== r.data_hash) return { valid: false, entries, brokenAt: seq, reason: 'the event it stands for is missing or changed' };
        const { hash, prev_hash: _prev, ...entry } = r;
        if (entryHash(prev, { ...entry, seq, position: Number(entry.position), event_id: String(entry.event_id) }) !== hash) {
          return { valid: false, entries, brokenAt: seq, reason: 'the entry was changed' };
        }
        prev = hash;
      }
      after = Number(rows[rows.length - 1].seq);
    }
  }
}
