import type { DomainEvent } from '../shared/decider';

/**
 * The facts of the enrichment feeds (ADR 0007).
 *
 * Stream `feed-kev`: an accepted catalogue is appended as one commit of
 *   KevEntriesListed*   (entries new or changed since the catalogue in use, in parts under 600 KB)
 *   KevEntriesDelisted* (CVEs no longer listed, in parts)
 *   KevCatalogueSynchronised (version, release date, count, digest of the CVE list)
 * so the catalogue is the fold of the stream and a day's commit holds only that day's changes.
 *
 * Stream `feed-epss`: EpssScoresSynchronised names the accepted file and the generation of the
 * `epss_scores` table holding its scores (the scores themselves do not pass through events).
 *
 * Both: FeedRefused (why a downloaded feed was not taken; the one in use is kept).
 *
 * Stream `kev-listed-<issue key>`: IssueKevListed, VGL-SEC-002 (S2.6-30), appended with
 * no_stream, so the event store itself guarantees once per issue.
 */
export type FeedName = 'kev' | 'epss';

/** One catalogue entry as Vigil keeps it (the long texts, description, action and notes, stay at CISA). */
export interface KevEntry {
  cve: string;
  dateAdded: string;
  vendorProject: string;
  product: string;
  name: string;
  dueDate: string;
  /** knownRansomwareCampaignUse: Known, Unknown, or null when absent. */
  ransomware: string | null;
}
export const FEEDS: readonly FeedName[] = ['kev', 'epss'];

/** Document 2 §6: "a KEV synchronisation newly lists the CVE of an open issue; once per issue". */
export const KEV_LISTED_SIEM = { signature: 'VGL-SEC-002', name: 'Actively exploited vulnerability detected', severity: 10 } as const;

export type KevEntriesListed = DomainEvent<'KevEntriesListed', { version: string; part: number; entries: KevEntry[] }>;
export type KevEntriesDelisted = DomainEvent<'KevEntriesDelisted', { version: string; part: number; cves: string[] }>;
export type KevCatalogueSynchronised = DomainEvent<'KevCatalogueSynchronised', {
  version: string;
  dateReleased: string;
  count: number;
  /** SHA-256 over the sorted CVE ids, one per line: the list in use, without carrying it. */
  digest: string;
  /** SHA-256 of the downloaded document. */
  sha256: string;
  listed: number;
  changed: number;
  delisted: number;
  /** Parts of KevEntriesListed and KevEntriesDelisted before this event in the same commit. */
  parts: number;
  at: string;
}>;
export type EpssScoresSynchronised = DomainEvent<'EpssScoresSynchronised', {
  scoreDate: string;
  modelVersion: string;
  count: number;
  sha256: string;
  /** The epss_scores generation holding the scores. */
  generation: number;
  at: string;
}>;
export type FeedRefused = DomainEvent<'FeedRefused', { feed: FeedName; kind: string; reason: string; at: string }>;
export type IssueKevListed = DomainEvent<'IssueKevListed', {
  id: number;
  key: string;
  cve: string;
  targetKind: string;
  targetId: number;
  severity: string;
  packageName: string | null;
  packageVersion: string | null;
  catalogueVersion: string;
  dateAdded: string;
  at: string;
  siem: typeof KEV_LISTED_SIEM;
}>;

export type FeedEvent = KevEntriesListed | KevEntriesDelisted | KevCatalogueSynchronised | EpssScoresSynchronised | FeedRefused | IssueKevListed;

export const FEED_EVENT_TYPES: ReadonlySet<string> = new Set([
  'KevEntriesListed', 'KevEntriesDelisted', 'KevCatalogueSynchronised', 'EpssScoresSynchronised', 'FeedRefused', 'IssueKevListed',
]);
