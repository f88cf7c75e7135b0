import { Knex } from 'knex';
import type {
  EpssScoresSynchronised, FeedName, FeedRefused, IssueKevListed, KevCatalogueSynchronised, KevEntriesDelisted, KevEntriesListed,
} from '../../domain/enrichment/feed-events';
import { RecordedEvent } from '../../domain/shared/event-envelope';
import type { IssueDetected } from '../../domain/backlog/issue';
import { cleanText } from '../engine/column-fit';
import { handledBy, Projection } from '../engine/projection';
import { RowWriter } from '../engine/row-writer';

/**
 * Enrichment read models (ADR 0007): `kev_catalogue` (the fold of the KEV diffs), `feed_state`,
 * `kev_listed` (issues signalled VGL-SEC-002), and the `kev` and `epss` columns of `issues`.
 *
 * It runs inside the backlog projection (withEnrichment, registered in projections/index.ts):
 * same checkpoint, same transaction, after the backlog's own handlers of the batch. So an issue
 * row always exists when its enrichment is computed, whatever the order of detections and
 * synchronisations in the log, and rebuilding `backlog` rebuilds the enrichment with it.
 *
 * issues.kev: null while the KEV feed was never synchronised (S1.1-09), else whether the
 * catalogue lists the issue's identifier. issues.epss: null while the EPSS feed was never
 * synchronised or the file scores no such CVE, else the score of the generation in use (that
 * table is written by the synchronisation, not by events; a rebuild reads the generation in use).
 */
export const ENRICHMENT_TABLES = ['kev_catalogue', 'feed_state', 'kev_listed'] as const;

const TYPES: ReadonlySet<string> = new Set([
  'KevEntriesListed', 'KevEntriesDelisted', 'KevCatalogueSynchronised', 'EpssScoresSynchronised', 'FeedRefused', 'IssueKevListed', 'IssueDetected',
]);

const IN_CHUNK = 1000;

/** A `feed_state` row (feed-reads.ts and queries.ts read it). */
export interface FeedStateRow {
  feed: FeedName; version: string | null; released_at: string | null; model_version: string | null; count: number | null; digest: string | null;
  sha256: string | null; generation: number | null; synchronised_at: string | null; stream_revision: number; last_refusal: string | null; last_refused_at: string | null;
}

const emptyState = (feed: FeedName): FeedStateRow => ({
  feed, version: null, released_at: null, model_version: null, count: null, digest: null, sha256: null, generation: null,
  synchronised_at: null, stream_revision: -1, last_refusal: null, last_refused_at: null,
});

/** The backlog projection with the enrichment applied after it, in the same batch and transaction. */
export function withEnrichment(backlog: Projection): Projection {
  return {
    name: backlog.name,
    handles: backlog.handles === 'all' ? 'all' : new Set([...backlog.handles, ...TYPES]),
    ignores: backlog.ignores,
    tables: [...backlog.tables, ...ENRICHMENT_TABLES],
    async apply(w, events) {
      const theirs = events.filter((e) => handledBy(backlog, e.type));
      if (theirs.length) await backlog.apply(w, theirs);
      await applyEnrichment(w, events.filter((e) => TYPES.has(e.type)));
    },
  };
}

export async function applyEnrichment(w: RowWriter, events: readonly RecordedEvent[]): Promise<void> {
  if (events.length === 0) return;
  const rows: FeedStateRow[] = await w.run(['feed_state'], (trx) => trx('feed_state').select('*'));
  const state = new Map<FeedName, FeedStateRow>(rows.map((r) => [r.feed, { ...r, stream_revision: Number(r.stream_revision) }]));
  const of = (feed: FeedName) => state.get(feed) ?? emptyState(feed);
  const touched = new Set<FeedName>();
  const touch = (row: FeedStateRow, e: RecordedEvent) => {
    // The feed's row after an event of its stream: its revision moves with every event.
    state.set(row.feed, { ...row, stream_revision: e.revision });
    touched.add(row.feed);
  };
  const detected: number[] = [];
  for (const e of events) {
    switch (e.type) {
      case 'IssueDetected':
        detected.push(Number((e.data as IssueDetected['data']).id));
        break;
      case 'KevEntriesListed': {
        const d = e.data as KevEntriesListed['data'];
        for (const x of d.entries) {
          w.upsert('kev_catalogue', {
            cve: x.cve, date_added: x.dateAdded, vendor_project: x.vendorProject, product: x.product, vulnerability_name: x.name,
            due_date: x.dueDate, known_ransomware: x.ransomware, listed_version: d.version,
          }, ['cve']);
        }
        // Once the catalogue is known, a listed CVE is known exploited at once; before, the
        // synchronisation's own event computes every issue.
        if (of('kev').version) await setKev(w, d.entries.map((x) => cleanText(x.cve)), true);
        touch(of('kev'), e);
        break;
      }
      case 'KevEntriesDelisted': {
        const d = e.data as KevEntriesDelisted['data'];
        const cves = d.cves.map(cleanText);
        await w.run(['kev_catalogue'], async (trx) => {
          for (let i = 0; i < cves.length; i += IN_CHUNK) await trx('kev_catalogue').whereIn('cve', cves.slice(i, i + IN_CHUNK)).del();
        });
        if (of('kev').version) await setKev(w, cves, false);
        touch(of('kev'), e);
        break;
      }
      case 'KevCatalogueSynchronised': {
        const d = e.data as KevCatalogueSynchronised['data'];
        const first = !of('kev').version;
        if (first) {
          await w.run(['issues', 'kev_catalogue'], (trx) => trx('issues').update({ kev: listedIn(trx) }));
        }
        touch({ ...of('kev'), version: d.version, released_at: d.dateReleased, count: d.count, digest: d.digest, sha256: d.sha256, synchronised_at: d.at }, e);
        break;
      }
      case 'EpssScoresSynchronised': {
        const d = e.data as EpssScoresSynchronised['data'];
        await w.run(['issues'], (trx) => trx('issues').whereNotNull('identifier').update({ epss: scoreIn(trx, d.generation) }));
        touch({
          ...of('epss'), version: d.scoreDate, released_at: d.scoreDate, model_version: d.modelVersion, count: d.count, sha256: d.sha256,
          generation: d.generation, synchronised_at: d.at,
        }, e);
        break;
      }
      case 'FeedRefused': {
        const d = e.data as FeedRefused['data'];
        touch({ ...of(d.feed), last_refusal: d.reason, last_refused_at: d.at }, e);
        break;
      }
      case 'IssueKevListed': {
        const d = e.data as IssueKevListed['data'];
        w.insert('kev_listed', { issue_id: d.id, issue_key: d.key, cve: d.cve, catalogue_version: d.catalogueVersion, listed_at: d.at }, ['issue_id']);
        break;
      }
      default:
        break;
    }
  }
  if (detected.length) await enrichDetected(w, detected, of('kev'), of('epss'));
  for (const feed of touched) w.upsert('feed_state', { ...state.get(feed)! }, ['feed']);
}

/** Issues detected in this batch: their KEV and EPSS values as of the batch's end. */
async function enrichDetected(w: RowWriter, ids: number[], kev: FeedStateRow, epss: FeedStateRow): Promise<void> {
  // Never synchronised: the rows already read unknown (null); nothing to look up.
  if (!kev.version && !(epss.version && epss.generation !== null)) return;
  await w.run(['issues', 'kev_catalogue'], async (trx) => {
    for (let i = 0; i < ids.length; i += IN_CHUNK) {
      await trx('issues').whereIn('id', ids.slice(i, i + IN_CHUNK)).update({
        kev: kev.version ? listedIn(trx) : null,
        epss: epss.version && epss.generation !== null ? scoreIn(trx, Number(epss.generation)) : null,
      });
    }
  });
}

/** `cves` cleaned of what PostgreSQL refuses in a parameter (cleanText, ADR 0011): they come from events. */
async function setKev(w: RowWriter, cves: readonly string[], value: boolean): Promise<void> {
  await w.run(['issues'], async (trx) => {
    for (let i = 0; i < cves.length; i += IN_CHUNK) await trx('issues').whereIn('identifier', cves.slice(i, i + IN_CHUNK)).update({ kev: value });
  });
}

const listedIn = (trx: Knex.Transaction) => trx.raw('EXISTS (SELECT 1 FROM kev_catalogue WHERE kev_catalogue.cve = issues.identifier)');
const scoreIn = (trx: Knex.Transaction, generation: number) =>
  trx.raw('(SELECT epss_scores.score FROM epss_scores WHERE epss_scores.generation = ? AND epss_scores.cve = issues.identifier)', [generation]);
