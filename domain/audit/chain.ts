import { hash } from 'node:crypto';

/**
 * The audit log: every security-relevant event, chained by hash (scheme 3, ADR 0012). Each
 * entry's hash covers the previous entry's hash and the whole envelope of its event as the
 * `events` table stores it (id, stream, revision, position, commit, type, metadata, data), so an
 * edit of any of them, a removed, inserted or reordered event, or a changed, removed or
 * reordered entry breaks it; rebuilding from the log yields the same chain.
 *
 * An auditor can recompute it with any SHA-256 tool and no canonicalisation rules:
 * `metadata_hash` and `data_hash` are the SHA-256 of the stored texts, byte for byte, and `hash`
 * is the SHA-256 of `prev_hash` followed by the JSON array
 * `[seq, event_id, stream_id, revision, position, commit, type, metadata_hash, data_hash]`.
 * Scheme 2 (ADR 0010) hashed the actor, address and time from the entry's own copies, so an edit of
 * an event's metadata, type or stream went unseen; scheme 1 hashed canonical JSON.
 */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * Issue lifecycle facts are not security events (a scan writes thousands); the import or scan
 * that caused them is chained. Verification knows them too: an event whose stored type is one of
 * these is not expected in the chain, so turning a chained event into one of them shows as a
 * changed type, and turning one of them into another type shows as an event the chain lacks.
 */
export const LEFT_OUT: ReadonlySet<string> = new Set(['IssueDetected', 'IssueResolved', 'IssueReopened']);

/**
 * One entry per chained event. The event's data and metadata stay in the event log (auditors read
 * them there by position); the entry holds the SHA-256 of their stored texts, so the chain vouches
 * for them without copying them (nor password or key hashes into a second place). `actor`,
 * `address` and `at` are copies from the metadata for listing and filtering: the hash covers
 * them through `metadata_hash`, and verification compares them with the stored metadata.
 */
export interface AuditEntry {
  seq: number;
  event_id: string;
  position: number;
  commit_id: string;
  stream_id: string;
  revision: number;
  type: string;
  actor: number | null;
  address: string | null;
  at: string;
  metadata_hash: string;
  data_hash: string;
  prev_hash: string;
  hash: string;
}

/** What the hash covers besides `prev_hash`, in the order it is hashed. */
export type ChainedFields = Pick<AuditEntry, 'seq' | 'event_id' | 'stream_id' | 'revision' | 'position' | 'commit_id' | 'type' | 'metadata_hash' | 'data_hash'>;

export function entryHash(prevHash: string, e: ChainedFields): string {
  return sha256(prevHash + JSON.stringify([e.seq, e.event_id, e.stream_id, e.revision, e.position, e.commit_id, e.type, e.metadata_hash, e.data_hash]));
}

/** SHA-256 of a text as stored (UTF-8 bytes), hex: what `metadata_hash` and `data_hash` hold. */
export function storedTextHash(text: string): string {
  return sha256(text);
}

/** Deterministic and free of I/O: hashing belongs to the domain's pure functions. */
function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}
