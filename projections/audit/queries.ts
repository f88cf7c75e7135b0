import { Database } from '../../infrastructure/db/database';
import { AuditEntry } from '../../domain/audit/chain';
import { operationOf, outcomeOf, typesOf } from '../../domain/audit/operations';
import { AuditVerification, verifyAuditChain } from './verification';

/**
 * The audit log for auditors: entries in order, and a verification that recomputes the chain
 * from the `events` table and compares it with the stored one, entry by entry
 * (audit-verification.ts).
 */
export class AuditQueries {
  constructor(private readonly db: Database) {}

  /**
   * Entries in chain order after `after` (seq): by operation (domain/audit/operations.ts) or event
   * type, actor, target (the stream, e.g. `repository-4`, `account-2`), and time from since
   * (inclusive) to until (exclusive).
   */
  async list(after: number, limit: number, filter: { type?: string; operation?: string; actor?: number; target?: string; since?: string; until?: string }) {
    const q = this.db.knex('audit_log').where('seq', '>', after).orderBy('seq').limit(limit + 1);
    if (filter.type) q.where('type', filter.type);
    if (filter.operation) {
      const known: string[] = (await this.db.knex('audit_log').distinct('type')).map((r: { type: string }) => r.type);
      q.whereIn('type', typesOf(filter.operation, known).concat(['']));
    }
    if (filter.actor !== undefined) q.where('actor', filter.actor);
    if (filter.target) q.where('stream_id', filter.target);
    if (filter.since) q.where('at', '>=', filter.since);
    if (filter.until) q.where('at', '<', filter.until);
    const rows: AuditEntry[] = await q;
    const items = rows.slice(0, limit).map((r) => ({
      seq: Number(r.seq), eventId: String(r.event_id), stream: r.stream_id, revision: Number(r.revision), position: Number(r.position), commit: String(r.commit_id),
      type: r.type, operation: operationOf(r.type), outcome: outcomeOf(r.type), target: r.stream_id, actor: r.actor === null ? null : Number(r.actor), address: r.address, at: r.at,
      metadataHash: r.metadata_hash, dataHash: r.data_hash, prevHash: r.prev_hash, hash: r.hash,
    }));
    return { items, next: rows.length > limit ? items[items.length - 1].seq : null };
  }

  /**
   * The newest entry (seq, hash, position, at): kept outside Vigil (a ticket, the SIEM), it shows
   * a removal of the newest entries that verification alone cannot. Not signed: no platform key yet.
   */
  async head(): Promise<{ seq: number; hash: string; position: number; at: string } | { seq: 0; hash: string; position: 0; at: null }> {
    const r: AuditEntry | undefined = await this.db.knex('audit_log').orderBy('seq', 'desc').first();
    return r ? { seq: Number(r.seq), hash: r.hash, position: Number(r.position), at: r.at } : { seq: 0, hash: '0'.repeat(64), position: 0, at: null };
  }

  async verify(): Promise<AuditVerification> {
    return verifyAuditChain(this.db);
  }
}
