import * as fs from 'node:fs';
import * as path from 'node:path';
import { DatabaseTarget, parseDatabaseUrl } from './database-url';
import { FeedSettings, loadFeedSettings } from '../feeds/feed-settings';
import { loadScannerSettings, ScannerSettings } from '../scanning/settings';
import { loadSiemSettings, SiemSettings } from '../siem/siem-settings';
import { ExportSettings, loadExportSettings } from '../exports/export-settings';
import { loadOpsSettings, OpsSettings } from './ops-settings';
import { parseBoolean, parseDuration, parseInteger, parseSize, SettingError } from './units';
import { loadOidcSettings, loadSecondFactorFailures, OidcSettings } from './sso-settings';
import { KmsSettings, loadKmsSettings } from './kms-settings';

/**
 * Every VIGIL_* setting Vigil reads, validated once at start. A malformed value stops the
 * start with a SettingError naming the variable and the expected form (see README "Settings").
 */
export interface BodyLimits {
  default: number;
  signIn: number;
  sarifImport: number;
  coverageImport: number;
  testReportImport: number;
  sbomImport: number;
  ruleSetUpload: number;
  ticketWebhook: number;
  vexIngest: number;
  agentResult: number;
  checklistTemplateImport: number;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  database: DatabaseTarget;
  eventStoreUrl: string | null;
  logLevel: string;
  logFormat: 'json' | 'pretty';
  bootstrap: { username: string; password: string } | null;
  passwordLogin: boolean;
  oidcIssuer: string | null;
  /** Single sign-on (issue #14): VIGIL_OIDC_* (infrastructure/config/sso-settings.ts); null while no issuer is set. */
  oidc: OidcSettings | null;
  /** VIGIL_SECOND_FACTOR_FAILURES (issue #14). */
  secondFactorFailures: number;
  /** External key custody (issue #14): VIGIL_ENCRYPTION_KMS_* (infrastructure/config/kms-settings.ts); null: the local ENCRYPTION_KEY. */
  kms: KmsSettings | null;
  sessionLifetimeMs: number;
  sessionIdleMs: number;
  apiDocsEnabled: boolean;
  swaggerUiEnabled: boolean;
  anonymousApiDocs: boolean;
  bodyLimits: BodyLimits;
  apiKeyRequestsPerMinute: number;
  bearerFailuresPerWindow: number;
  bearerFailureWindowMs: number;
  /** The password throttle (issue #17): failed sign-ins per account name and per address in a window. */
  signInThrottle: { perAccount: number; perAddress: number; windowMs: number };
  trustedProxies: string[];
  publicUrl: string | null;
  encryptionKey: Buffer | null;
  previousEncryptionKeys: Buffer[];
  brandName: string;
  version: string;
  readYourWritesTimeoutMs: number;
  /** Enrichment feeds (spec 1 §8.3): VIGIL_KEV_*, VIGIL_EPSS_*, VIGIL_FEED_* (infrastructure/feeds/feed-settings.ts). */
  feeds: FeedSettings;
  /** The scan lifecycle (spec 1 §8.2, §8.3): built-in worker, scheduler, maintenance, retry delays. */
  scans: ScanSettings;
  /** The built-in executor (spec 1 §8.3): VIGIL_WORK_DIR, VIGIL_GIT_ALLOWED_HOSTS, VIGIL_HOST_SSH, VIGIL_IMAGE_*, VIGIL_VULNERABILITY_DB_DIR (infrastructure/scanning/settings.ts). */
  scanners: ScannerSettings;
  /** The SIEM export and the audit mirror (issue #13): VIGIL_SIEM_*, VIGIL_AUDIT_MIRROR* (infrastructure/siem/siem-settings.ts). */
  siem: SiemSettings;
  /** Exports and the platform signing key (issue #11): VIGIL_SIGNING_KEY[_FILE], VIGIL_VEX_AUTHOR (infrastructure/exports/export-settings.ts). */
  exports: ExportSettings;
  /** Running as a service: VIGIL_SHUTDOWN_TIMEOUT, VIGIL_METRICS_TOKEN (infrastructure/config/ops-settings.ts). */
  ops: OpsSettings;
}

export interface ScanSettings {
  /** VIGIL_EMBEDDED_WORKER: false runs no built-in worker (agents only). */
  embeddedWorker: boolean;
  /** VIGIL_SCAN_MAX_CONCURRENT: scans of the built-in worker at once. */
  maxConcurrent: number;
  workerIntervalMs: number;
  /** VIGIL_WORKER_LABELS: labels the built-in worker answers to. */
  workerLabels: string[];
  /** VIGIL_AGENT_REPORTS_AT_ONCE: agents' results and failure reports recorded at once per instance (the rest wait in memory). */
  agentReportsAtOnce: number;
  schedulerIntervalMs: number;
  maintenanceIntervalMs: number;
  /** VIGIL_SCAN_RETRY_DELAYS: delay before attempt 2, 3, ... (the last reused). */
  retryDelaysMs: number[];
}

/** "1m,5m,15m": durations, comma separated; a negative value stops the start (spec 1 §8.2). */
export function parseRetryDelays(setting: string, text: string): number[] {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.some((p) => p === '')) throw new SettingError(setting, `"${text}" is not a list of delays; write durations separated by commas, e.g. 1m,5m,15m.`);
  return parts.map((p) => {
    if (/^-/.test(p)) throw new SettingError(setting, `"${p}" is negative; a retry delay is 0 or more, e.g. 1m,5m,15m.`);
    return parseDuration(setting, p);
  });
}

/** Comma-separated labels: letters, digits, dot, dash, underscore, colon, slash; at most 64 characters each. */
export function parseLabels(setting: string, text: string): string[] {
  const labels = text.split(',').map((l) => l.trim()).filter(Boolean);
  for (const label of labels) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._:/-]{0,63}$/.test(label)) throw new SettingError(setting, `"${label}" is not a label; write letters, digits, ".", "-", "_", ":" or "/" (at most 64), comma separated.`);
  }
  return [...new Set(labels)];
}

function positiveDuration(setting: string, text: string): number {
  const value = parseDuration(setting, text);
  if (value <= 0) throw new SettingError(setting, `"${text}" must be longer than zero.`);
  return value;
}

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v;
}

function encryptionKeyFrom(setting: string, text: string): Buffer {
  const trimmed = text.trim();
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) ? Buffer.from(trimmed, 'base64') : Buffer.alloc(0);
  if (bytes.length !== 32 || bytes.toString('base64') !== trimmed) {
    throw new SettingError(setting, 'expected 32 random bytes written in base64 (44 characters), e.g. the output of `openssl rand -base64 32`.');
  }
  return bytes;
}

function readKeyFile(setting: string, file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    throw new SettingError(setting, `the file "${file}" cannot be read; name a readable file holding the key.`);
  }
}

function encryptionKeys(env: Env): { current: Buffer | null; previous: Buffer[] } {
  const inline = read(env, 'ENCRYPTION_KEY');
  const file = read(env, 'ENCRYPTION_KEY_FILE');
  if (inline && file) throw new SettingError('ENCRYPTION_KEY', 'ENCRYPTION_KEY and ENCRYPTION_KEY_FILE are both set; set only one of them.');
  let current: Buffer | null = null;
  if (inline) current = encryptionKeyFrom('ENCRYPTION_KEY', inline);
  if (file) current = encryptionKeyFrom('ENCRYPTION_KEY_FILE', readKeyFile('ENCRYPTION_KEY_FILE', file));
  const previousText = [read(env, 'VIGIL_PREVIOUS_ENCRYPTION_KEYS') ?? '']
    .concat(read(env, 'VIGIL_PREVIOUS_ENCRYPTION_KEYS_FILE') ? [readKeyFile('VIGIL_PREVIOUS_ENCRYPTION_KEYS_FILE', env.VIGIL_PREVIOUS_ENCRYPTION_KEYS_FILE!)] : [])
    .join(',');
  const previous = previousText.split(/[,\n]/).map((s) => s.trim()).filter(Boolean)
    .map((k) => encryptionKeyFrom('VIGIL_PREVIOUS_ENCRYPTION_KEYS', k));
  return { current, previous };
}

export function loadConfig(env: Env = process.env): Config {
  const size = (name: string, fallback: string) => parseSize(name, read(env, name) ?? fallback);
  const duration = (name: string, fallback: string) => parseDuration(name, read(env, name) ?? fallback);
  const bool = (name: string, fallback: boolean) => (read(env, name) === undefined ? fallback : parseBoolean(name, env[name]!));
  const dataDir = path.resolve(read(env, 'VIGIL_DATA_DIR') ?? './.vigil-data');

  const bootstrapUser = read(env, 'VIGIL_BOOTSTRAP_USERNAME');
  const bootstrapPassword = read(env, 'VIGIL_BOOTSTRAP_PASSWORD');
  if (bootstrapUser && !bootstrapPassword) throw new SettingError('VIGIL_BOOTSTRAP_PASSWORD', 'VIGIL_BOOTSTRAP_USERNAME is set without a password.');
  if (bootstrapPassword && bootstrapPassword.length < 12) {
    throw new SettingError('VIGIL_BOOTSTRAP_PASSWORD', 'the bootstrap password must have at least 12 characters.');
  }
  const eventStoreUrl = read(env, 'VIGIL_EVENTSTORE_URL') ?? null;
  if (eventStoreUrl && !/^(esdb|esdb\+discover|kurrentdb|kurrentdb\+discover|kurrent):\/\//i.test(eventStoreUrl)) {
    throw new SettingError('VIGIL_EVENTSTORE_URL', 'expected an esdb:// or kurrentdb:// connection string.');
  }
  const logFormat = read(env, 'VIGIL_LOG_FORMAT') ?? (env.NODE_ENV === 'production' ? 'json' : 'pretty');
  if (logFormat !== 'json' && logFormat !== 'pretty') throw new SettingError('VIGIL_LOG_FORMAT', 'write json or pretty.');
  const keys = encryptionKeys(env);
  const publicUrl = read(env, 'VIGIL_PUBLIC_URL') ?? null;
  if (publicUrl && !/^https?:\/\/[^\s]+$/i.test(publicUrl)) throw new SettingError('VIGIL_PUBLIC_URL', 'expected an http(s) URL.');

  return {
    port: parseInteger('VIGIL_PORT', read(env, 'VIGIL_PORT') ?? '3180', 0, 65535),
    host: read(env, 'VIGIL_HOST') ?? '0.0.0.0',
    dataDir,
    database: parseDatabaseUrl(read(env, 'VIGIL_DB_URL'), read(env, 'VIGIL_DB_USER') ?? 'vigil', env.VIGIL_DB_PASSWORD ?? '', path.join(dataDir, 'pglite')),
    eventStoreUrl,
    logLevel: read(env, 'VIGIL_LOG_LEVEL') ?? 'info',
    logFormat,
    bootstrap: bootstrapUser && bootstrapPassword ? { username: bootstrapUser, password: bootstrapPassword } : null,
    passwordLogin: bool('VIGIL_PASSWORD_LOGIN', true),
    oidcIssuer: read(env, 'VIGIL_OIDC_ISSUER') ?? null,
    oidc: loadOidcSettings(env),
    secondFactorFailures: loadSecondFactorFailures(env),
    kms: loadKmsSettings(env),
    sessionLifetimeMs: duration('VIGIL_SESSION_LIFETIME', '12h'),
    sessionIdleMs: duration('VIGIL_SESSION_IDLE', '60m'),
    apiDocsEnabled: bool('VIGIL_API_DOCS_ENABLED', false),
    swaggerUiEnabled: bool('VIGIL_SWAGGER_UI_ENABLED', false),
    anonymousApiDocs: bool('VIGIL_ANONYMOUS_API_DOCS', false),
    bodyLimits: {
      default: size('VIGIL_MAX_BODY_DEFAULT', '1MB'),
      signIn: size('VIGIL_MAX_BODY_SIGN_IN', '16KB'),
      sarifImport: size('VIGIL_MAX_BODY_SARIF_IMPORT', '32MB'),
      coverageImport: size('VIGIL_MAX_BODY_COVERAGE_IMPORT', '16MB'),
      testReportImport: size('VIGIL_MAX_BODY_TEST_REPORT_IMPORT', '32MB'),
      sbomImport: size('VIGIL_MAX_BODY_SBOM_IMPORT', '32MB'),
      ruleSetUpload: size('VIGIL_MAX_BODY_RULE_SET_UPLOAD', '64MB'),
      ticketWebhook: size('VIGIL_MAX_BODY_TICKET_WEBHOOK', '1MB'),
      vexIngest: size('VIGIL_MAX_BODY_VEX_INGEST', '16MB'),
      agentResult: size('VIGIL_MAX_BODY_AGENT_RESULT', '256MB'),
      checklistTemplateImport: size('VIGIL_MAX_BODY_CHECKLIST_TEMPLATE_IMPORT', '10MB'),
    },
    apiKeyRequestsPerMinute: parseInteger('VIGIL_API_KEY_REQUESTS_PER_MINUTE', read(env, 'VIGIL_API_KEY_REQUESTS_PER_MINUTE') ?? '600', 1, 1_000_000),
    bearerFailuresPerWindow: parseInteger('VIGIL_BEARER_FAILURES_PER_WINDOW', read(env, 'VIGIL_BEARER_FAILURES_PER_WINDOW') ?? '60', 1, 1_000_000),
    bearerFailureWindowMs: duration('VIGIL_BEARER_FAILURE_WINDOW', 'PT5M'),
    signInThrottle: {
      perAccount: parseInteger('VIGIL_SIGN_IN_FAILURES_PER_ACCOUNT', read(env, 'VIGIL_SIGN_IN_FAILURES_PER_ACCOUNT') ?? '10', 1, 1_000_000),
      perAddress: parseInteger('VIGIL_SIGN_IN_FAILURES_PER_ADDRESS', read(env, 'VIGIL_SIGN_IN_FAILURES_PER_ADDRESS') ?? '50', 1, 1_000_000),
      windowMs: positiveDuration('VIGIL_SIGN_IN_FAILURE_WINDOW', read(env, 'VIGIL_SIGN_IN_FAILURE_WINDOW') ?? 'PT15M'),
    },
    trustedProxies: (read(env, 'VIGIL_TRUSTED_PROXIES') ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    publicUrl,
    encryptionKey: keys.current,
    previousEncryptionKeys: keys.previous,
    brandName: read(env, 'VIGIL_BRAND_NAME') ?? 'Vigil',
    version: read(env, 'VIGIL_VERSION') ?? '0.1.0',
    readYourWritesTimeoutMs: duration('VIGIL_READ_YOUR_WRITES_TIMEOUT', '10s'),
    feeds: loadFeedSettings(env),
    siem: loadSiemSettings(env),
    scans: {
      embeddedWorker: bool('VIGIL_EMBEDDED_WORKER', true),
      maxConcurrent: parseInteger('VIGIL_SCAN_MAX_CONCURRENT', read(env, 'VIGIL_SCAN_MAX_CONCURRENT') ?? '2', 1, 64),
      workerIntervalMs: positiveDuration('VIGIL_WORKER_INTERVAL', read(env, 'VIGIL_WORKER_INTERVAL') ?? '15s'),
      workerLabels: parseLabels('VIGIL_WORKER_LABELS', read(env, 'VIGIL_WORKER_LABELS') ?? ''),
      agentReportsAtOnce: parseInteger('VIGIL_AGENT_REPORTS_AT_ONCE', read(env, 'VIGIL_AGENT_REPORTS_AT_ONCE') ?? '4', 1, 256),
      schedulerIntervalMs: positiveDuration('VIGIL_SCHEDULER_INTERVAL', read(env, 'VIGIL_SCHEDULER_INTERVAL') ?? '60s'),
      maintenanceIntervalMs: positiveDuration('VIGIL_MAINTENANCE_INTERVAL', read(env, 'VIGIL_MAINTENANCE_INTERVAL') ?? '1h'),
      retryDelaysMs: parseRetryDelays('VIGIL_SCAN_RETRY_DELAYS', read(env, 'VIGIL_SCAN_RETRY_DELAYS') ?? '1m,5m,15m'),
    },
    scanners: loadScannerSettings(env, dataDir),
    exports: loadExportSettings(env, read(env, 'VIGIL_BRAND_NAME') ?? 'Vigil'),
    ops: loadOpsSettings(env),
  };
}
