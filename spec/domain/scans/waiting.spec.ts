import { expect } from 'chai';
import { WAITING_TRANSITIONS, waitingDecider, WaitingEvent } from '../../../domain/scans/waiting';
import { deciderSpec } from '../../support/decider-spec';
import { streams } from '../../../domain/shared/streams';

const spec = deciderSpec(waitingDecider);
const on = { targetKind: 'repository' as const, targetId: 12 };
const reserved = (scanId: number): WaitingEvent => ({ type: 'ScanWaitingReserved', data: { ...on, scanId } });
const released = (scanId: number): WaitingEvent => ({ type: 'ScanWaitingReleased', data: { ...on, scanId } });
const at = new Date('2026-03-02T10:00:00.000Z');

describe('Target scan reservation: "no scan of the target waiting" (spec 1 §3.1)', () => {
  it('[S1.3.1-01] a request reserves the free target, one stream per target', () => {
    spec.given([]).when({ type: 'Reserve', ...on, scanId: 7 }).then([reserved(7)]);
    expect(streams.scanWaiting('repository', 12)).to.equal('scan-waiting-repository-12');
    expect(streams.scanWaiting('container', 12)).to.not.equal(streams.scanWaiting('repository', 12));
  });

  it('[S1.3.1-02] a second request while a scan of the target waits is refused with 409 naming the waiting scan', () => {
    const error = spec.given([reserved(7)]).when({ type: 'Reserve', ...on, scanId: 8 }).thenRefused('conflict');
    expect(error.extensions).to.deep.equal({ scanId: 7 });
    expect(error.message).to.match(/Scan 7/);
  });

  it('[S1.3.1-01] reserving again for the same scan decides nothing (a retried commit)', () => {
    spec.given([reserved(7)]).when({ type: 'Reserve', ...on, scanId: 7 }).then([]);
  });

  it('[S1.3.1-03] [S1.3.1-01] the claim releases the reservation, after which a new request is accepted (a running scan is not waiting)', () => {
    spec.given([reserved(7)]).when({ type: 'Release', ...on, scanId: 7 }).then([released(7)]);
    spec.given([reserved(7), released(7)]).when({ type: 'Reserve', ...on, scanId: 8 }).then([reserved(8)]);
  });

  it('[S1.3.1-03] releasing a reservation someone else holds, or none, decides nothing', () => {
    spec.given([reserved(7)]).when({ type: 'Release', ...on, scanId: 8 }).then([]);
    spec.given([]).when({ type: 'Release', ...on, scanId: 8 }).then([]);
  });

  it('[S1.3.1-16] a retried scan waits again: it takes the free reservation, and leaves one held by a newer request alone', () => {
    spec.given([reserved(7), released(7)]).when({ type: 'Requeue', ...on, scanId: 7 }).then([reserved(7)]);
    spec.given([reserved(7), released(7), reserved(8)]).when({ type: 'Requeue', ...on, scanId: 7 }).then([]);
    spec.given([reserved(7), released(7), reserved(7)]).when({ type: 'Reserve', ...on, scanId: 9 }).thenRefused('conflict');
  });

  it('[S1.2.1-32] [S1.3.1-01] a scheduled request records ScanScheduled with the round instant (lastScheduledScanAt)', () => {
    spec.given([]).when({ type: 'Reserve', ...on, scanId: 7, scheduledAt: at })
      .then([reserved(7), { type: 'ScanScheduled', data: { ...on, scanId: 7, scheduledAt: at.toISOString() } }]);
    spec.given([reserved(6)]).when({ type: 'Reserve', ...on, scanId: 7, scheduledAt: at }).thenRefused('conflict');
  });

  it('[S1.3.1-02] accepts every command in both states (the table is read beside decide)', () => {
    expect(WAITING_TRANSITIONS).to.deep.equal({ free: ['Reserve', 'Requeue', 'Release'], held: ['Reserve', 'Requeue', 'Release'] });
  });
});
