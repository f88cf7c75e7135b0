import type { AuditExtract } from '../../application/exports/ports';
import { Database } from '../../infrastructure/db/database';

/** The audit entries of some streams for an evidence bundle, in chain order, and the chain's head, both as of an instant (audit_log, projections/audit). */
export class SqlAuditExtract implements AuditExtract {
  /** `caughtUp` waits until the audit projection holds every event appended so far (false: it did not in time). */
  constructor(private readonly db: Database, private readonly caughtUp: () => Promise<boolean> = async () => true) {}

  async settle(): Promise<boolean> {
    return this.caughtUp();
  }

  // `at` is the event's metadata.at as stored (ISO 8601 UTC, milliseconds): compared as text, in instant order.
  async entries(streams: readonly string[], upTo: string) {
    const out: Array<Record<string, unknown>> = [];
    for (let i = 0; i < streams.length; i += 500) {
      const rows = await this.db.knex('audit_log').whereIn('stream_id', streams.slice(i, i + 500)).where('at', '<=', upTo).orderBy('seq');
      for (const r of rows as Array<Record<string, any>>) {
        out.push({
          seq: Number(r.seq), eventId: String(r.event_id), stream: r.stream_id, revision: Number(r.revision), position: Number(r.position), commit: String(r.commit_id),
          type: r.type, actor: r.actor === null ? null : Number(r.actor), address: r.address, at: r.at, metadataHash: r.metadata_hash, dataHash: r.data_hash,
          prevHash: r.prev_hash, hash: r.hash,
        });
      }
    }
    return out.sort((a, b) => Number(a.seq) - Number(b.seq));
  }

  async head(upTo: string) {
    const row: Record<string, any> | undefined = await this.db.knex('audit_log').where('at', '<=', upTo).orderBy('seq', 'desc').first('seq', 'hash', 'at');
    return row ? { seq: Number(row.seq), hash: row.hash, at: row.at } : null;
  }
}
