import type { FeedReads, FeedState, KevSignalCandidate } from '../../application/enrichment/ports';
import type { FeedName, KevEntry } from '../../domain/enrichment/feed-events';
import { Database } from '../../infrastructure/db/database';
import type { FeedStateRow } from './projection';

export async function feedStateRows(db: Database): Promise<Map<FeedName, FeedStateRow>> {
  const rows: FeedStateRow[] = await db.knex('feed_state').select('*');
  return new Map(rows.map((r) => [r.feed, r]));
}

const IN_CHUNK = 1000;

/**
 * What the feed synchronisation reads (the FeedReads port): the feed state, the catalogue in use
 * and the issues a KEV synchronisation signals. `kev_listed` and the issues' `kev` column are this
 * context's (the enrichment runs inside the backlog projection, same transaction): the lookup of
 * open issues reads `issues` beside them.
 */
export class SqlFeedReads implements FeedReads {
  constructor(private readonly db: Database) {}

  async states(): Promise<Map<FeedName, FeedState>> {
    const rows = await feedStateRows(this.db);
    return new Map([...rows].map(([feed, r]) => [feed, {
      feed, version: r.version, releasedAt: r.released_at, modelVersion: r.model_version, count: r.count === null ? null : Number(r.count),
      synchronisedAt: r.synchronised_at, lastRefusedAt: r.last_refused_at, streamRevision: Number(r.stream_revision),
    }]));
  }

  async catalogueInUse(): Promise<Map<string, KevEntry>> {
    const rows: Array<{ cve: string; date_added: string; vendor_project: string; product: string; vulnerability_name: string; due_date: string; known_ransomware: string | null }> =
      await this.db.knex('kev_catalogue').select('cve', 'date_added', 'vendor_project', 'product', 'vulnerability_name', 'due_date', 'known_ransomware');
    return new Map(rows.map((r) => [r.cve, {
      cve: r.cve, dateAdded: r.date_added, vendorProject: r.vendor_project, product: r.product, name: r.vulnerability_name, dueDate: r.due_date, ransomware: r.known_ransomware,
    }]));
  }

  /** A thousand CVEs a statement; by id within each. */
  async openIssuesNeverSignalled(cves: readonly string[]): Promise<KevSignalCandidate[]> {
    const k = this.db.knex;
    const out: KevSignalCandidate[] = [];
    for (let i = 0; i < cves.length; i += IN_CHUNK) {
      const rows: Array<{ id: number; issue_key: string; identifier: string; target_kind: string; target_id: number; severity: string; package_name: string | null; package_version: string | null }> = await k('issues')
        .select('id', 'issue_key', 'identifier', 'target_kind', 'target_id', 'severity', 'package_name', 'package_version')
        .where('status', 'open').whereIn('identifier', cves.slice(i, i + IN_CHUNK))
        .whereNotExists(k('kev_listed').select(k.raw('1')).whereRaw('kev_listed.issue_id = issues.id'))
        .orderBy('id');
      for (const r of rows) {
        out.push({
          id: Number(r.id), key: r.issue_key, cve: r.identifier, targetKind: r.target_kind, targetId: Number(r.target_id), severity: r.severity,
          packageName: r.package_name, packageVersion: r.package_version,
        });
      }
    }
    return out;
  }
}
