import {
  ScanCommand, ScanCommandType, scanDecider, ScanEvent, ScanStateStatus,
} from '../../../domain/scans/scan';
import { DEFAULT_RETRY_DELAYS_MS } from '../../../domain/scans/policy';
import { deciderSpec } from '../../support/decider-spec';

export const spec = deciderSpec(scanDecider);
export const T0 = new Date('2026-03-02T10:00:00.000Z');
export const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
export const iso = (minutes: number) => at(minutes).toISOString();
export const WORKER = 'embedded:host-a:1:abc';
export const DELAYS = DEFAULT_RETRY_DELAYS_MS;
export const target = { kind: 'repository' as const, id: 12 };
const of = { id: 7, targetKind: 'repository' as const, targetId: 12 };

export const requested = (o: { requiresCredential?: boolean; trigger?: 'manual' | 'schedule'; kind?: 'repository' | 'container' } = {}): ScanEvent => ({
  type: 'ScanRequested',
  data: {
    ...of, targetKind: o.kind ?? 'repository', trigger: o.trigger ?? 'manual', requiresCredential: o.requiresCredential ?? false,
    requestedBy: 1, requestedAt: iso(0),
  },
});

export const claimed = (attempt: number, minutes = 0, worker = WORKER): ScanEvent => ({
  type: 'ScanClaimed', data: { ...of, attempt, worker, claimedAt: iso(minutes), leaseExpiresAt: iso(minutes + 20) },
});

export const retried = (attempt: number, minutes: number, notBeforeMinutes: number, reason = 'network unreachable'): ScanEvent => ({
  type: 'ScanRetryScheduled',
  data: { ...of, attempt, kind: 'transient', reason, failedAt: iso(minutes), lapsed: false, audit: 'AGENT_SCAN_FAILED', notBefore: iso(notBeforeMinutes) },
});

export const completedEvent = (attempt = 1): ScanEvent => ({
  type: 'ScanCompleted',
  data: {
    ...of, attempt, worker: WORKER, completedAt: iso(10), duration: 'PT10M', steps: { sbom: { tool: 'syft', toolVersion: '1.0', findings: 0 } },
    detectedLanguages: ['go'], createdCount: 0, resolvedCount: 0, reopenedCount: 0, disallowedLicences: [],
  },
});

export const failedEvent = (attempt = 1): ScanEvent => ({
  type: 'ScanFailed',
  data: { ...of, attempt, kind: 'permanent', reason: 'branch absent', failedAt: iso(5), lapsed: false, audit: 'AGENT_SCAN_FAILED' },
});

/** A history that leaves the scan in each status (attempt 1 running for scanning). */
export function historyIn(status: ScanStateStatus): ScanEvent[] {
  switch (status) {
    case 'new': return [];
    case 'pending': return [requested()];
    case 'scanning': return [requested(), claimed(1)];
    case 'completed': return [requested(), claimed(1), completedEvent()];
    case 'failed': return [requested(), claimed(1), failedEvent()];
  }
}

/** A well-formed command of each type, as the executor of attempt 1 would send it after the lease lapsed. */
export function sampleCommand(type: ScanCommandType): ScanCommand {
  switch (type) {
    case 'RequestScan':
      return { type, scanId: 7, target, trigger: 'manual', requestedBy: 1, now: at(0) };
    case 'ClaimScan':
      return { type, worker: WORKER, holdsCredentials: true, now: at(1) };
    case 'RenewLease':
      return { type, worker: WORKER, attempt: 1, leaseExpiresAt: iso(20), now: at(5) };
    case 'CompleteScan':
      return {
        type, worker: WORKER, attempt: 1, now: at(10), steps: { sbom: { tool: 'syft', toolVersion: '1.0', findings: 0 } }, languages: ['Go'],
        languagesBounded: false, duration: 'PT10M', outcome: { created: 0, resolved: 0, reopened: 0 },
      };
    case 'FailScan':
      return { type, worker: WORKER, attempt: 1, kind: 'transient', reason: 'timeout', now: at(5), retryDelaysMs: DELAYS };
    case 'LapseLease':
      return { type, attempt: 1, leaseExpiresAt: iso(20), now: at(21), retryDelaysMs: DELAYS };
  }
}
