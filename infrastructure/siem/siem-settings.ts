import { hostname } from 'node:os';
import { parseRetryDelaysList } from './retry-delays';
import { parseDuration, parseInteger, parseSize, SettingError } from '../config/units';

/**
 * Deployment settings of the SIEM export and the audit mirror (README "Settings", docs/siem.md):
 * VIGIL_SIEM_INTERVAL (how often the outbox is drained, 60 s, spec 2 §8), VIGIL_SIEM_RETRY_DELAYS
 * (seven delays: eight attempts over about four hours, spec 2 §3.6), VIGIL_SIEM_TIMEOUT (per
 * connection), VIGIL_SIEM_BATCH (rows per sending), VIGIL_SIEM_BATCH_PAUSE (the wait between batches
 * while the process is busy), VIGIL_SIEM_HOSTNAME (the syslog HOSTNAME),
 * VIGIL_AUDIT_MIRROR (a path for JSON lines, off by default), VIGIL_AUDIT_MIRROR_MAX_SIZE and
 * VIGIL_AUDIT_VERIFY_INTERVAL (the background verification of the chain).
 */
export interface SiemSettings {
  intervalMs: number;
  retryDelaysMs: number[];
  timeoutMs: number;
  batchSize: number;
  /** VIGIL_SIEM_BATCH_PAUSE: the wait between two batches while the process is busy with other work. */
  batchPauseMs: number;
  hostname: string;
  auditMirror: string | null;
  auditMirrorMaxBytes: number;
  /** VIGIL_AUDIT_VERIFY_INTERVAL: how often the chain is verified in the background (0: never). */
  auditVerifyIntervalMs: number;
}

type Env = Record<string, string | undefined>;
const read = (env: Env, name: string) => (env[name] === undefined || env[name]!.trim() === '' ? undefined : env[name]!.trim());

export const DEFAULT_RETRY_DELAYS = '1m,4m,10m,20m,40m,60m,105m';

export function loadSiemSettings(env: Env): SiemSettings {
  const intervalMs = parseDuration('VIGIL_SIEM_INTERVAL', read(env, 'VIGIL_SIEM_INTERVAL') ?? '60s');
  if (intervalMs <= 0) throw new SettingError('VIGIL_SIEM_INTERVAL', 'must be longer than zero, e.g. 60s.');
  return {
    intervalMs,
    retryDelaysMs: parseRetryDelaysList('VIGIL_SIEM_RETRY_DELAYS', read(env, 'VIGIL_SIEM_RETRY_DELAYS') ?? DEFAULT_RETRY_DELAYS),
    timeoutMs: parseDuration('VIGIL_SIEM_TIMEOUT', read(env, 'VIGIL_SIEM_TIMEOUT') ?? '10s'),
    batchSize: parseInteger('VIGIL_SIEM_BATCH', read(env, 'VIGIL_SIEM_BATCH') ?? '1000', 1, 100_000),
    batchPauseMs: parseDuration('VIGIL_SIEM_BATCH_PAUSE', read(env, 'VIGIL_SIEM_BATCH_PAUSE') ?? '500ms'),
    hostname: read(env, 'VIGIL_SIEM_HOSTNAME') ?? hostname(),
    auditMirror: read(env, 'VIGIL_AUDIT_MIRROR') ?? null,
    auditVerifyIntervalMs: parseDuration('VIGIL_AUDIT_VERIFY_INTERVAL', read(env, 'VIGIL_AUDIT_VERIFY_INTERVAL') ?? '1h'),
    auditMirrorMaxBytes: parseSize('VIGIL_AUDIT_MIRROR_MAX_SIZE', read(env, 'VIGIL_AUDIT_MIRROR_MAX_SIZE') ?? '100MB'),
  };
}
