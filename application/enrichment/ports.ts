import type { FeedName, IssueKevListed, KevEntry } from '../../domain/enrichment/feed-events';

/** A KEV catalogue read completely and checked (infrastructure/feeds/kev-catalogue.ts reads it). */
export interface KevCatalogue {
  version: string;
  /** dateReleased as the catalogue states it. */
  dateReleased: string;
  count: number;
  entries: KevEntry[];
  /** SHA-256 of the document as downloaded. */
  sha256: string;
}

/** An EPSS scores file read completely and checked (infrastructure/feeds/epss-scores.ts reads it). */
export interface EpssFile {
  modelVersion: string;
  /** score_date as the file states it (ISO 8601). */
  scoreDate: string;
  count: number;
  cves: string[];
  scores: number[];
  percentiles: number[];
  /** SHA-256 of the CSV (after inflation). */
  sha256: string;
  inflatedBytes: number;
  compressed: boolean;
}

/**
 * Where a feed comes from (infrastructure/feeds/feed-sources.ts): downloaded from its configured
 * URL (bounded, every hop through the destination guard) and read completely. Anything partial,
 * malformed, too large or not allowed is thrown as a FeedRefusal (domain/enrichment/feed-refusal.ts);
 * any other error is not the feed's fault.
 */
export interface FeedSource<T> {
  /** `signal` aborts a download in progress (the server stopping). */
  fetch(signal: AbortSignal): Promise<T>;
}

export interface FeedSources {
  kev: FeedSource<KevCatalogue>;
  epss: FeedSource<EpssFile>;
}

/** A feed as the enrichment read model has it (`feed_state`): what is in use, and the feed stream's revision it reflects. */
export interface FeedState {
  feed: FeedName;
  /** KEV catalogVersion or EPSS score_date; null while never synchronised. */
  version: string | null;
  /** KEV dateReleased, EPSS score_date. */
  releasedAt: string | null;
  modelVersion: string | null;
  count: number | null;
  synchronisedAt: string | null;
  lastRefusedAt: string | null;
  /** The revision of the feed's stream the row reflects: a decision taken on this state appends with it. */
  streamRevision: number;
}

/** An open issue a KEV synchronisation may signal (VGL-SEC-002): what its IssueKevListed event names. */
export type KevSignalCandidate = Omit<IssueKevListed['data'], 'catalogueVersion' | 'dateAdded' | 'at' | 'siem'>;

/** What the synchronisation reads of the enrichment read model (projections/enrichment/feed-reads.ts). */
export interface FeedReads {
  /** Each synchronised or refused feed's state; a feed never touched is absent. */
  states(): Promise<Map<FeedName, FeedState>>;
  /** The KEV catalogue in use, by CVE. */
  catalogueInUse(): Promise<Map<string, KevEntry>>;
  /** The open issues whose identifier is one of `cves` and that were never signalled, by id. */
  openIssuesNeverSignalled(cves: readonly string[]): Promise<KevSignalCandidate[]>;
}

/**
 * `epss_scores`: the scores of each accepted file as a generation, written by the synchronisation
 * before its event is appended, not by a projection (ADR 0007; infrastructure/feeds/epss-table.ts).
 */
export interface EpssGenerations {
  write(generation: number, file: Pick<EpssFile, 'cves' | 'scores' | 'percentiles'>): Promise<void>;
  /** Removes one generation (its event was never appended). */
  delete(generation: number): Promise<void>;
  /** Removes every generation older than `keep` (the one in use). */
  deleteBefore(keep: number): Promise<void>;
}
