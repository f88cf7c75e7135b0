import { expect } from 'chai';
import { fold } from '../../../domain/shared/decider';
import { LEASE_MS, MAX_SCAN_ATTEMPTS, retryDelayMs } from '../../../domain/scans/policy';
import {
  SCAN_COMMAND_TYPES, SCAN_STATUSES, SCAN_TRANSITIONS, scanDecider, ScanEvent, ScanStateStatus,
} from '../../../domain/scans/scan';
import {
  at, claimed, completedEvent, DELAYS, failedEvent, historyIn, iso, requested, retried, sampleCommand, spec, target, WORKER,
} from './fixtures';

const of = { id: 7, targetKind: 'repository' as const, targetId: 12 };

describe('Scan decider (spec 1 §3.1)', () => {
  describe('(new) --POST .../scan or schedule--> pending', () => {
    it('[S1.3.1-01] [S1.2.2-01] [S1.2.2-02] a request makes a pending scan with an integer id, no attempt spent, claimable at once', () => {
      spec.given([]).when({ type: 'RequestScan', scanId: 7, target, trigger: 'manual', requestedBy: 1, now: at(0) }).then([requested()]);
      const state = fold(scanDecider, [requested()]);
      expect(state).to.include({ status: 'pending', attempts: 0, notBefore: iso(0), error: null });
    });

    it('[S1.3.1-01] a scheduled round requests with trigger schedule; a credential-bearing scan says so', () => {
      spec.given([]).when({ type: 'RequestScan', scanId: 7, target, trigger: 'schedule', requiresCredential: true, requestedBy: null, now: at(0) })
        .then([{ type: 'ScanRequested', data: { ...of, trigger: 'schedule', requiresCredential: true, requestedBy: null, requestedAt: iso(0) } }]);
    });

    it('[S1.2.2-01] refuses a malformed id, target or trigger with 400', () => {
      spec.given([]).when({ type: 'RequestScan', scanId: 0, target, trigger: 'manual', requestedBy: 1, now: at(0) }).thenRefused('invalid');
      spec.given([]).when({ type: 'RequestScan', scanId: 7, target: { kind: 'repository', id: -1 }, trigger: 'manual', requestedBy: 1, now: at(0) }).thenRefused('invalid');
      spec.given([]).when({ type: 'RequestScan', scanId: 7, target: { kind: 'volume' as never, id: 1 }, trigger: 'manual', requestedBy: 1, now: at(0) }).thenRefused('invalid');
      spec.given([]).when({ type: 'RequestScan', scanId: 7, target, trigger: 'webhook' as never, requestedBy: 1, now: at(0) }).thenRefused('invalid');
    });

    it('[S1.3.1-01] the same scan is never requested twice (409)', () => {
      spec.given([requested()]).when(sampleCommand('RequestScan')).thenRefused('conflict');
    });
  });

  describe('pending --a worker or agent claims--> scanning', () => {
    it('[S1.3.1-03] [S1.3.1-06] [S1.8.2-17] a claim moves the scan to scanning, spends attempt 1 and starts a 20-minute lease', () => {
      spec.given([requested()]).when({ type: 'ClaimScan', worker: WORKER, holdsCredentials: false, now: at(1) }).then([claimed(1, 1)]);
      expect(LEASE_MS).to.equal(20 * 60_000);
      expect(fold(scanDecider, [requested(), claimed(1, 1)])).to.include({ status: 'scanning', attempts: 1, worker: WORKER });
    });

    it('[S1.3.1-17] a retried scan is not claimable before its delay is over, and is at its end', () => {
      const history = [requested(), claimed(1), retried(1, 5, 6)];
      spec.given(history).when({ type: 'ClaimScan', worker: WORKER, holdsCredentials: true, now: new Date(at(6).getTime() - 1) }).thenRefused('conflict');
      spec.given(history).when({ type: 'ClaimScan', worker: WORKER, holdsCredentials: true, now: at(6) }).then([claimed(2, 6)]);
    });

    it('[S1.3.1-20] [S1.3.1-05] a scan needing a credential is refused to an executor unable to hold it and waits without spending an attempt', () => {
      const history = [requested({ requiresCredential: true })];
      spec.given(history).when({ type: 'ClaimScan', worker: WORKER, holdsCredentials: false, now: at(1) }).thenRefused('conflict');
      expect(fold(scanDecider, history)).to.include({ status: 'pending', attempts: 0 });
      spec.given(history).when({ type: 'ClaimScan', worker: WORKER, holdsCredentials: true, now: at(1) }).then([claimed(1, 1)]);
    });

    it('[S1.3.1-03] a claim names its executor (400 otherwise)', () => {
      spec.given([requested()]).when({ type: 'ClaimScan', worker: '', holdsCredentials: true, now: at(1) }).thenRefused('invalid');
    });
  });

  describe('scanning --result accepted--> completed', () => {
    it('[S1.3.1-07] a result of the running attempt completes the scan with its steps, counts and normalised languages', () => {
      spec.given(historyIn('scanning')).when({
        ...sampleCommand('CompleteScan') as Extract<ReturnType<typeof sampleCommand>, { type: 'CompleteScan' }>,
        languages: ['Go', 'golang', 'cobol'], outcome: { created: 2, resolved: 1, reopened: 0 },
        steps: { sbom: { tool: 'syft', toolVersion: '1.0', findings: 0 }, vulnerabilities: { tool: 'grype', toolVersion: null, findings: 2 }, secrets: null },
      }).then([{
        type: 'ScanCompleted',
        data: {
          ...of, attempt: 1, worker: WORKER, completedAt: iso(10), duration: 'PT10M', detectedLanguages: ['go'], createdCount: 2, resolvedCount: 1, reopenedCount: 0,
          steps: { sbom: { tool: 'syft', toolVersion: '1.0', findings: 0 }, vulnerabilities: { tool: 'grype', toolVersion: null, findings: 2 }, secrets: null },
          disallowedLicences: [],
        },
      }]);
      expect(fold(scanDecider, [...historyIn('scanning'), completedEvent()]).status).to.equal('completed');
    });

    it('[S1.3.1-07] languages are unknown (null) when the count stopped at its bound, and an image scan records none', () => {
      const complete = sampleCommand('CompleteScan') as Extract<ReturnType<typeof sampleCommand>, { type: 'CompleteScan' }>;
      const bounded = scanDecider.decide({ ...complete, languagesBounded: true }, fold(scanDecider, historyIn('scanning')))[0];
      expect((bounded.data as { detectedLanguages: unknown }).detectedLanguages).to.equal(null);
      const image = scanDecider.decide(complete, fold(scanDecider, [requested({ kind: 'container' }), claimed(1)]))[0];
      expect((image.data as { detectedLanguages: unknown }).detectedLanguages).to.equal(null);
    });
  });

  describe('scanning --permanent failure--> failed', () => {
    for (const [rule, reason] of [
      ['S1.3.1-11', 'Host key verification failed: the host key of git.example changed'],
      ['S1.3.1-12', 'Authentication refused by git.example'],
      ['S1.3.1-13', "Remote branch 'release' not found in upstream origin"],
      ['S1.3.1-14', 'URL refused by the clone guard: 169.254.169.254 is a metadata address'],
    ] as const) {
      it(`[${rule}] [S1.3.1-15] [S1.2.2-03] [S1.2.2-07] "${reason.slice(0, 40)}..." fails the scan with the reason, audited AGENT_SCAN_FAILED`, () => {
        spec.given(historyIn('scanning')).when({ type: 'FailScan', worker: WORKER, attempt: 1, kind: 'permanent', reason, now: at(5), retryDelaysMs: DELAYS })
          .then([{ type: 'ScanFailed', data: { ...of, attempt: 1, kind: 'permanent', reason, failedAt: iso(5), lapsed: false, audit: 'AGENT_SCAN_FAILED' } }]);
        const after = fold(scanDecider, [...historyIn('scanning'), ...scanDecider.decide({ type: 'FailScan', worker: WORKER, attempt: 1, kind: 'permanent', reason, now: at(5), retryDelaysMs: DELAYS }, fold(scanDecider, historyIn('scanning')))]);
        expect(after).to.include({ status: 'failed', error: reason, attempts: 1 });
      });
    }

    it('[S1.2.2-07] [S1.4.7-07] [S1.4.7-08] the reason is one line, scrubbed of credentials, at most 1,000 characters', () => {
      const reason = `clone of https://bob:hunter2@git.example/a.git failed\ntoken=ghp_${'a'.repeat(36)}\n${'x'.repeat(2000)}`;
      const [event] = scanDecider.decide({ type: 'FailScan', worker: WORKER, attempt: 1, kind: 'permanent', reason, now: at(5), retryDelaysMs: DELAYS }, fold(scanDecider, historyIn('scanning')));
      const text = (event.data as { reason: string }).reason;
      expect(text).to.have.length.at.most(1000);
      expect(text).to.not.match(/[\n\r]/);
      expect(text).to.not.include('hunter2');
      expect(text).to.not.include('ghp_');
      expect(text).to.match(/^clone of https:\/\/\*\*\*@git\.example\/a\.git failed token=\*\*\*/);
    });
  });

  describe('scanning --transient failure, attempts left--> pending; third attempt--> failed', () => {
    it('[S1.3.1-16] [S1.3.1-17] attempt 1 fails: pending again, the attempt stays counted, claimable after 1 minute', () => {
      spec.given(historyIn('scanning')).when({ type: 'FailScan', worker: WORKER, attempt: 1, kind: 'transient', reason: 'network unreachable', now: at(5), retryDelaysMs: DELAYS })
        .then([retried(1, 5, 6)]);
      expect(fold(scanDecider, [...historyIn('scanning'), retried(1, 5, 6)])).to.include({ status: 'pending', attempts: 1, notBefore: iso(6), error: null });
    });

    it('[S1.3.1-17] attempt 2 fails: claimable after 5 minutes', () => {
      spec.given([requested(), claimed(1), retried(1, 5, 6), claimed(2, 6)])
        .when({ type: 'FailScan', worker: WORKER, attempt: 2, kind: 'transient', reason: 'HTTP 503 from registry', now: at(8), retryDelaysMs: DELAYS })
        .then([retried(2, 8, 13, 'HTTP 503 from registry')].map((e) => ({ ...e, data: { ...e.data, attempt: 2 } })) as ScanEvent[]);
    });

    it('[S1.3.1-18] [S1.2.2-04] [S1.8.2-12] a transient failure of the third attempt fails the scan; attempts never pass 3', () => {
      const history = [requested(), claimed(1), retried(1, 5, 6), claimed(2, 6), retried(2, 8, 13), claimed(3, 13)];
      spec.given(history).when({ type: 'FailScan', worker: WORKER, attempt: 3, kind: 'transient', reason: 'timeout after 15 minutes', now: at(30), retryDelaysMs: DELAYS })
        .then([{ type: 'ScanFailed', data: { ...of, attempt: 3, kind: 'transient', reason: 'timeout after 15 minutes', failedAt: iso(30), lapsed: false, audit: 'AGENT_SCAN_FAILED' } }]);
      expect(MAX_SCAN_ATTEMPTS).to.equal(3);
      const final = fold(scanDecider, [...history, ...scanDecider.decide({ type: 'FailScan', worker: WORKER, attempt: 3, kind: 'transient', reason: 'x', now: at(30), retryDelaysMs: DELAYS }, fold(scanDecider, history))]);
      expect(final).to.include({ status: 'failed', attempts: 3 });
    });

    it('[S1.3.1-17] [S1.8.2-13] the delays are 1m, then 5m, then 15m, the last reused; a shorter list reuses its last', () => {
      expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, DELAYS) / 60_000)).to.deep.equal([1, 5, 15, 15, 15]);
      expect([1, 2, 3].map((n) => retryDelayMs(n, [30_000]))).to.deep.equal([30_000, 30_000, 30_000]);
      expect(retryDelayMs(1, [])).to.equal(0);
    });

    it('[S1.3.1-17] the configured delays come in the command: 30s then 2m', () => {
      const [e] = scanDecider.decide({ type: 'FailScan', worker: WORKER, attempt: 1, kind: 'transient', reason: 'x', now: at(5), retryDelaysMs: [30_000, 120_000] }, fold(scanDecider, historyIn('scanning')));
      expect((e.data as { notBefore: string }).notBefore).to.equal(new Date(at(5).getTime() + 30_000).toISOString());
    });
  });

  describe('scanning --lease lapsed (transient)--> pending | failed', () => {
    it('[S1.3.1-19] [S1.8.2-17] a lease is not lapsed before 20 minutes after the last heartbeat (409)', () => {
      spec.given(historyIn('scanning')).when({ type: 'LapseLease', attempt: 1, leaseExpiresAt: iso(20), now: new Date(at(20).getTime() - 1), retryDelaysMs: DELAYS }).thenRefused('conflict');
    });

    it('[S1.3.1-19] [S1.3.1-16] a lapsed lease is a transient failure: the attempt counts, the scan waits 1 minute; no report, so no audit name', () => {
      const [e] = scanDecider.decide({ type: 'LapseLease', attempt: 1, leaseExpiresAt: iso(20), now: at(20), retryDelaysMs: DELAYS }, fold(scanDecider, historyIn('scanning')));
      expect(e.type).to.equal('ScanRetryScheduled');
      expect(e.data).to.deep.include({ attempt: 1, kind: 'transient', lapsed: true, notBefore: iso(21) });
      expect(e.data).to.not.have.property('audit');
      expect((e.data as { reason: string }).reason).to.match(/lease lapsed/);
    });

    it('[S1.3.1-19] [S1.3.1-18] a lapse of the third attempt fails the scan', () => {
      const history = [requested(), claimed(1), retried(1, 5, 6), claimed(2, 6), retried(2, 8, 13), claimed(3, 13)];
      const [e] = scanDecider.decide({ type: 'LapseLease', attempt: 3, leaseExpiresAt: iso(33), now: at(40), retryDelaysMs: DELAYS }, fold(scanDecider, history));
      expect(e.type).to.equal('ScanFailed');
      expect(e.data).to.deep.include({ attempt: 3, kind: 'transient', lapsed: true });
    });
  });

  describe('heartbeats and stale reports', () => {
    it('[S1.2.2-06] a heartbeat of the running attempt renews the lease and writes no event (ADR 0006)', () => {
      spec.given(historyIn('scanning')).when(sampleCommand('RenewLease')).then([]);
    });

    it('[S1.2.2-06] [S1.3.1-19] a heartbeat after the lease lapsed, of another attempt or of another executor is refused (409)', () => {
      spec.given(historyIn('scanning')).when({ type: 'RenewLease', worker: WORKER, attempt: 1, leaseExpiresAt: iso(20), now: at(20) }).thenRefused('conflict');
      spec.given(historyIn('scanning')).when({ type: 'RenewLease', worker: WORKER, attempt: 2, leaseExpiresAt: iso(20), now: at(5) }).thenRefused('conflict');
      spec.given(historyIn('scanning')).when({ type: 'RenewLease', worker: 'agent:9', attempt: 1, leaseExpiresAt: iso(20), now: at(5) }).thenRefused('conflict');
    });

    it('[S1.3.1-07] [S1.3.1-16] [S1.4.7-23] a result or failure of an attempt that no longer runs, or from another executor, is refused (409)', () => {
      const afterLapse = [requested(), claimed(1), retried(1, 21, 22), claimed(2, 22, 'agent:9')];
      spec.given(afterLapse).when(sampleCommand('CompleteScan')).thenRefused('conflict');
      spec.given(afterLapse).when(sampleCommand('FailScan')).thenRefused('conflict');
      spec.given([requested(), claimed(1, 0, 'agent:9')]).when(sampleCommand('CompleteScan')).thenRefused('conflict');
      spec.given([requested(), claimed(1, 0, 'agent:9')]).when(sampleCommand('LapseLease')).then(
        scanDecider.decide(sampleCommand('LapseLease'), fold(scanDecider, [requested(), claimed(1, 0, 'agent:9')])),
      );
    });

    it('[S1.3.1-07] a repeated result after completion is refused (409)', () => {
      spec.given([...historyIn('scanning'), completedEvent()]).when(sampleCommand('CompleteScan')).thenRefused('conflict');
      spec.given([...historyIn('scanning'), failedEvent()]).when(sampleCommand('FailScan')).thenRefused('conflict');
    });

    it('[S1.3.1-15] a failure kind other than permanent or transient is 400', () => {
      spec.given(historyIn('scanning')).when({ ...sampleCommand('FailScan'), kind: 'fatal' } as never).thenRefused('invalid');
    });
  });

  describe('the transition table', () => {
    it('[S1.2.2-02] has a row for (new) and for every status of the vocabulary, and no other', () => {
      expect(Object.keys(SCAN_TRANSITIONS).sort()).to.deep.equal(['new', ...SCAN_STATUSES].sort());
    });

    for (const status of Object.keys(SCAN_TRANSITIONS) as ScanStateStatus[]) {
      for (const type of SCAN_COMMAND_TYPES) {
        const listed = SCAN_TRANSITIONS[status].includes(type);
        if (listed) {
          it(`[S1.2.2-02] [S1.2.2-04] ${status} accepts ${type}; the status after is of the vocabulary and attempts stay within 0..3`, () => {
            const history = historyIn(status);
            const events = scanDecider.decide(sampleCommand(type), fold(scanDecider, history));
            const after = fold(scanDecider, [...history, ...events]);
            expect(after.status).to.be.oneOf(SCAN_STATUSES as unknown as string[]);
            if (after.status !== 'new') expect(after.attempts).to.be.within(0, 3);
          });
        } else {
          it(`[S1.3.1-02] ${status} refuses ${type} (${status === 'new' ? 404 : 409})`, () => {
            spec.given(historyIn(status)).when(sampleCommand(type)).thenRefused(status === 'new' ? 'not_found' : 'conflict');
          });
        }
      }
    }
  });
});
