import type { KevEntry } from '../../domain/enrichment/feed-events';
import { sha256Hex } from '../../domain/shared/digest';
import { splitByJsonBytes } from '../shared/json-parts';

/**
 * Pure decisions of the feed synchronisation: is a downloaded feed newer, the same or older than
 * the one in use (S1.8.3-50), what changed in the catalogue, which CVEs are newly listed, and how
 * the changes are cut into events the store accepts (it refuses events over 900 KB).
 */
export type Freshness = { freshness: 'newer' } | { freshness: 'same' } | { freshness: 'older'; why: string };

/** Compares dotted versions by their numbers (2025.01.24 < 2025.8.25; v2023.03.01 < v2025.03.14); text order when they have none. */
export function compareVersions(a: string, b: string): number {
  const na = (a.match(/\d+/g) ?? []).map(Number);
  const nb = (b.match(/\d+/g) ?? []).map(Number);
  if (na.length === 0 || nb.length === 0) return a === b ? 0 : a < b ? -1 : 1;
  for (let i = 0; i < Math.max(na.length, nb.length); i++) {
    const x = na[i] ?? 0;
    const y = nb[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

/** KEV: older when its catalogVersion or its dateReleased is older than the catalogue in use. */
export function kevFreshness(inUse: { version: string; dateReleased: string } | null, candidate: { version: string; dateReleased: string }): Freshness {
  if (!inUse) return { freshness: 'newer' };
  const byVersion = sign(compareVersions(candidate.version, inUse.version));
  const byDate = sign(Date.parse(candidate.dateReleased) - Date.parse(inUse.dateReleased));
  if (byVersion < 0) return { freshness: 'older', why: `The KEV catalogue offered is version ${candidate.version}, older than ${inUse.version} in use.` };
  if (byDate < 0) return { freshness: 'older', why: `The KEV catalogue offered was released ${candidate.dateReleased}, before ${inUse.dateReleased} of the catalogue in use.` };
  return byVersion === 0 && byDate === 0 ? { freshness: 'same' } : { freshness: 'newer' };
}

/** EPSS: older when its score_date or its model_version is older than the file in use. */
export function epssFreshness(inUse: { scoreDate: string; modelVersion: string } | null, candidate: { scoreDate: string; modelVersion: string }): Freshness {
  if (!inUse) return { freshness: 'newer' };
  const byDate = sign(Date.parse(candidate.scoreDate) - Date.parse(inUse.scoreDate));
  const byModel = sign(compareVersions(candidate.modelVersion, inUse.modelVersion));
  if (byDate < 0) return { freshness: 'older', why: `The EPSS file offered scores ${candidate.scoreDate}, before ${inUse.scoreDate} in use.` };
  if (byModel < 0) return { freshness: 'older', why: `The EPSS file offered uses model ${candidate.modelVersion}, older than ${inUse.modelVersion} in use.` };
  return byDate === 0 && byModel === 0 ? { freshness: 'same' } : { freshness: 'newer' };
}

/**
 * A catalogue listing fewer than half the CVEs of the one in use is taken for a partial export
 * (CISA removes a handful a year); refusing it keeps the catalogue in use (S1.8.3-50).
 */
export function shrinksLikePartial(inUseCount: number | null, candidateCount: number): boolean {
  return inUseCount !== null && inUseCount > 0 && candidateCount * 2 < inUseCount;
}

export interface CatalogueDiff {
  /** Entries new or changed (one event kind upserts both). */
  listed: KevEntry[];
  /** CVEs not in the catalogue in use: what a synchronisation newly lists (every one at the first). */
  newly: string[];
  changed: number;
  delisted: string[];
}

export function diffCatalogue(inUse: ReadonlyMap<string, KevEntry>, candidate: readonly KevEntry[]): CatalogueDiff {
  const listed: KevEntry[] = [];
  const newly: string[] = [];
  let changed = 0;
  const present = new Set<string>();
  for (const entry of candidate) {
    present.add(entry.cve);
    const old = inUse.get(entry.cve);
    if (!old) {
      listed.push(entry);
      newly.push(entry.cve);
    } else if (!sameEntry(old, entry)) {
      listed.push(entry);
      changed++;
    }
  }
  const delisted = [...inUse.keys()].filter((cve) => !present.has(cve)).sort();
  return { listed, newly, changed, delisted };
}

function sameEntry(a: KevEntry, b: KevEntry): boolean {
  return a.dateAdded === b.dateAdded && a.vendorProject === b.vendorProject && a.product === b.product && a.name === b.name
    && a.dueDate === b.dueDate && (a.ransomware ?? null) === (b.ransomware ?? null);
}

/** SHA-256 over the sorted CVE ids, one per line. */
export function catalogueDigest(cves: Iterable<string>): string {
  return sha256Hex([...cves].sort().join('\n'));
}

/** Bytes of JSON per event part: well under the store's 900 KB per event, with room for the envelope. */
export const MAX_PART_BYTES = 600 * 1024;

/** Cuts items into parts whose JSON stays under maxBytes (an item over it alone is its own part). */
export function partsUnder<T>(items: readonly T[], maxBytes = MAX_PART_BYTES): T[][] {
  return splitByJsonBytes(items, maxBytes);
}
