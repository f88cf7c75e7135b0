import { RecordedEvent } from '../../domain/shared/event-envelope';
import type { ScanClaimedData, ScanCompletedData, ScanFailedData, ScanRequestedData, ScanRetryScheduledData } from '../../domain/scans/scan';
import { SCAN_STREAM } from '../../domain/shared/streams';
import { Projection } from '../engine/projection';
import { RowWriter } from '../engine/row-writer';

/**
 * The `scans` read model (spec 1 §2.2): one row per scan, from the events of its `scan-<id>` stream
 * only (other streams may reuse a type name; `scan-waiting-...` holds the waiting reservations).
 * The gate and the scorecards read `status`, `target_kind`, `target_id` and `finished_at`. The live
 * lease is not here: it moves with heartbeats in `scan_leases` (ADR 0006).
 */
type Handler = (w: RowWriter, e: RecordedEvent<any>) => Promise<unknown> | void;

const handlers: Record<string, Handler> = {
  ScanRequested: (w, e: RecordedEvent<ScanRequestedData>) => w.insert('scans', {
    id: e.data.id, target_kind: e.data.targetKind, target_id: e.data.targetId, trigger: e.data.trigger, status: 'pending',
    error: null, error_kind: null, last_error: null, attempts: 0, requires_credential: e.data.requiresCredential, requested_by: e.data.requestedBy,
    requested_at: e.data.requestedAt, not_before: e.data.requestedAt, started_at: null, finished_at: null, worker: null, languages: null,
    duration: null, steps: null, created_count: null, resolved_count: null, reopened_count: null, updated_at: e.metadata.at,
  }),
  ScanClaimed: (w, e: RecordedEvent<ScanClaimedData>) => w.update('scans', { id: e.data.id }, {
    status: 'scanning', attempts: e.data.attempt, worker: e.data.worker, started_at: e.data.claimedAt, updated_at: e.metadata.at,
  }),
  ScanCompleted: (w, e: RecordedEvent<ScanCompletedData>) => w.update('scans', { id: e.data.id }, {
    status: 'completed', finished_at: e.data.completedAt, duration: e.data.duration, steps: JSON.stringify(e.data.steps),
    languages: e.data.detectedLanguages === null ? null : JSON.stringify(e.data.detectedLanguages),
    created_count: e.data.createdCount, resolved_count: e.data.resolvedCount, reopened_count: e.data.reopenedCount, updated_at: e.metadata.at,
  }),
  ScanRetryScheduled: (w, e: RecordedEvent<ScanRetryScheduledData>) => w.update('scans', { id: e.data.id }, {
    status: 'pending', not_before: e.data.notBefore, last_error: e.data.reason, updated_at: e.metadata.at,
  }),
  ScanFailed: (w, e: RecordedEvent<ScanFailedData>) => w.update('scans', { id: e.data.id }, {
    status: 'failed', error: e.data.reason, error_kind: e.data.kind, last_error: e.data.reason, finished_at: e.data.failedAt, updated_at: e.metadata.at,
  }),
};

export const scansProjection: Projection = {
  name: 'scans',
  handles: new Set(Object.keys(handlers)),
  tables: ['scans'],
  async apply(w, events) {
    for (const e of events) if (SCAN_STREAM.test(e.stream)) await handlers[e.type](w, e);
  },
};
