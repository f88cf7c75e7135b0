import { hash } from 'node:crypto';
import { RecordedEvent } from '../domain/shared/event-envelope';
import { Projection } from './engine/projection';

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

function sha256(text: string): string {
  return hash('sha256', text, 'hex');
}

/**
 * The stored texts of an event. The SQL store hands them over as read; EventStoreDB's events come
 * parsed only, and JSON.stringify gives the stored text back (Vigil stored what JSON.stringify
 * wrote, and parsing keeps key order).
 */
function storedData(e: RecordedEvent): string {
  return e.storedData ?? JSON.stringify(e.data ?? null);
}

function storedMetadata(e: RecordedEvent): string {
  return e.storedMetadata ?? JSON.stringify(e.metadata);
}

export const auditProjection: Projection = {
  name: 'audit',
  handles: 'all',
  ignores: LEFT_OUT,
  tables: ['audit_log'],
  // Its work is hashing (two or three SHA-256 per event): in a lane of its own, a rebuild hashes
  // while the other projections' rows are written (20 % faster replays here).
  lane: 'audit',
  async apply(w, events) {
    const last: { seq: number; hash: string } | undefined = await w.trx('audit_log').select('seq', 'hash').orderBy('seq', 'desc').first();
    let seq = Number(last?.seq ?? 0);
    let prev = last?.hash ?? GENESIS_HASH;
    // The entry's own copies (address, actor, at) are cleaned and cut to their columns (ADR 0011);
    // the hash covers the event as the log stores it, so fitting a copy never changes it.
    const fit = await w.fitter('audit_log');
    // A command's events share one metadata text: hashed once per run of equal texts.
    let metadataText: string | undefined;
    let metadataHash = '';
    for (const e of events) {
      seq += 1;
      const metadata = storedMetadata(e);
      if (metadata !== metadataText) {
        metadataText = metadata;
        metadataHash = storedTextHash(metadata);
      }
      const row: AuditEntry = fit({
        seq, event_id: e.id, position: e.cursor.position, commit_id: e.cursor.commit, stream_id: e.stream, revision: e.revision, type: e.type,
        actor: e.metadata.actor ?? null, address: (e.metadata.address as string | null) ?? null, at: e.metadata.at,
        metadata_hash: metadataHash, data_hash: storedTextHash(storedData(e)), prev_hash: prev, hash: '',
      });
      row.hash = entryHash(prev, row);
      prev = row.hash;
      // No key: entries are only ever inserted, in order.
      w.insert('audit_log', row as unknown as Record<string, unknown>, null);
    }
  },
};
