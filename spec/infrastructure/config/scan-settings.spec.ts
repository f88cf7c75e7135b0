import { expect } from 'chai';
import { loadConfig } from '../../../infrastructure/config/config';
import { SettingError } from '../../../infrastructure/config/units';

const refused = (env: Record<string, string>, setting: string) => {
  let error: unknown;
  try {
    loadConfig(env);
  } catch (e) {
    error = e;
  }
  expect(error, `${setting} should stop the start`).to.be.instanceOf(SettingError);
  expect((error as SettingError).setting).to.equal(setting);
  return (error as SettingError).message;
};

describe('Scan settings read at start (spec 1 §8.2, §8.3)', () => {
  it('[S1.8.3-39] [S1.8.3-41] [S1.8.3-42] [S1.8.3-43] [S1.8.2-13] have the documented defaults', () => {
    expect(loadConfig({}).scans).to.deep.equal({
      embeddedWorker: true, maxConcurrent: 2, workerIntervalMs: 15_000, workerLabels: [], agentReportsAtOnce: 4, schedulerIntervalMs: 60_000,
      maintenanceIntervalMs: 3_600_000, retryDelaysMs: [60_000, 300_000, 900_000],
    });
  });

  it('[S1.8.3-39] [S1.8.3-41] [S1.8.3-42] [S1.8.3-43] read every variable in its documented form', () => {
    const c = loadConfig({
      VIGIL_EMBEDDED_WORKER: 'false', VIGIL_SCAN_MAX_CONCURRENT: '5', VIGIL_WORKER_INTERVAL: '2s', VIGIL_WORKER_LABELS: 'linux, gpu ,linux',
      VIGIL_SCHEDULER_INTERVAL: 'PT2M', VIGIL_MAINTENANCE_INTERVAL: '30m', VIGIL_SCAN_RETRY_DELAYS: '30s, 2m', VIGIL_AGENT_REPORTS_AT_ONCE: '8',
    });
    expect(c.scans).to.deep.equal({
      embeddedWorker: false, maxConcurrent: 5, workerIntervalMs: 2000, workerLabels: ['linux', 'gpu'], agentReportsAtOnce: 8, schedulerIntervalMs: 120_000,
      maintenanceIntervalMs: 1_800_000, retryDelaysMs: [30_000, 120_000],
    });
  });

  it('[S1.8.2-14] a negative value in VIGIL_SCAN_RETRY_DELAYS stops the start, naming the value', () => {
    expect(refused({ VIGIL_SCAN_RETRY_DELAYS: '1m,-5m,15m' }, 'VIGIL_SCAN_RETRY_DELAYS')).to.match(/"-5m" is negative/);
    refused({ VIGIL_SCAN_RETRY_DELAYS: '-1' }, 'VIGIL_SCAN_RETRY_DELAYS');
  });

  it('[S1.8.2-13] refuses retry delays that are not durations or leave a gap in the list', () => {
    refused({ VIGIL_SCAN_RETRY_DELAYS: '1m,,15m' }, 'VIGIL_SCAN_RETRY_DELAYS');
    refused({ VIGIL_SCAN_RETRY_DELAYS: 'soon' }, 'VIGIL_SCAN_RETRY_DELAYS');
    expect(loadConfig({ VIGIL_SCAN_RETRY_DELAYS: '0s' }).scans.retryDelaysMs).to.deep.equal([0]);
  });

  it('[S1.8.3-39] [S1.8.3-41] [S1.8.3-42] [S1.8.3-43] refuse malformed values with the variable named', () => {
    refused({ VIGIL_EMBEDDED_WORKER: 'maybe' }, 'VIGIL_EMBEDDED_WORKER');
    refused({ VIGIL_SCAN_MAX_CONCURRENT: '0' }, 'VIGIL_SCAN_MAX_CONCURRENT');
    refused({ VIGIL_SCAN_MAX_CONCURRENT: 'two' }, 'VIGIL_SCAN_MAX_CONCURRENT');
    refused({ VIGIL_WORKER_INTERVAL: '0s' }, 'VIGIL_WORKER_INTERVAL');
    refused({ VIGIL_SCHEDULER_INTERVAL: 'hourly' }, 'VIGIL_SCHEDULER_INTERVAL');
    refused({ VIGIL_MAINTENANCE_INTERVAL: '-1h' }, 'VIGIL_MAINTENANCE_INTERVAL');
    refused({ VIGIL_WORKER_LABELS: 'ok,not ok' }, 'VIGIL_WORKER_LABELS');
  });
});
