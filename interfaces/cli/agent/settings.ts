import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseDuration, SettingError } from '../../../infrastructure/config/units';
import { loadScannerSettings, ScannerSettings } from '../../../infrastructure/scanning/settings';

/**
 * The agent's settings (spec 1 §8.3, docs/agents.md). The token and the signing key are read from
 * files under /run/secrets/ (VIGIL_AGENT_TOKEN_FILE, VIGIL_AGENT_SIGNING_KEY_FILE name others); the
 * variables VIGIL_AGENT_TOKEN and VIGIL_AGENT_SIGNING_KEY are for development only.
 *
 * | Variable | Default |
 * |---|---|
 * | VIGIL_URL | required: the control plane's base URL |
 * | VIGIL_AGENT_TOKEN_FILE | /run/secrets/vigil_agent_token |
 * | VIGIL_AGENT_SIGNING_KEY_FILE | /run/secrets/vigil_agent_signing_key (absent or blank: results accepted on the key alone) |
 * | VIGIL_AGENT_MODE | local (delegated: clone credentials arrive sealed per job) |
 * | VIGIL_AGENT_LABELS | none (comma separated) |
 * | VIGIL_AGENT_WAIT / _RETRY / _HEARTBEAT | 30s / 10s / 60s |
 * | VIGIL_AGENT_WORK_DIR | /var/lib/vigil/agent-work |
 * | VIGIL_IMAGE_*, VIGIL_GIT_ALLOWED_HOSTS, VIGIL_HOST_SSH, ... | as for the built-in worker (infrastructure/scanning/settings.ts) |
 */
export interface AgentSettings {
  url: string;
  token: string;
  /** The Ed25519 private half in base64, or null. */
  signingKey: string | null;
  mode: 'local' | 'delegated';
  labels: string[];
  waitMs: number;
  retryMs: number;
  heartbeatMs: number;
  scanners: ScannerSettings;
}

type Env = Record<string, string | undefined>;
export const SECRETS_DIR = '/run/secrets';

function secret(env: Env, name: string, fileSetting: string, defaultFile: string): string | null {
  const file = env[fileSetting]?.trim() || defaultFile;
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim() || null;
  if (env[fileSetting]?.trim()) throw new SettingError(fileSetting, `${file} does not exist.`);
  const value = env[name]?.trim();
  return value ? value : null;
}

export function loadAgentSettings(env: Env): AgentSettings {
  const url = env.VIGIL_URL?.trim();
  if (!url || !/^https?:\/\/[^\s]+$/i.test(url)) throw new SettingError('VIGIL_URL', 'the control plane\'s base URL is required, e.g. https://vigil.example.com.');
  const token = secret(env, 'VIGIL_AGENT_TOKEN', 'VIGIL_AGENT_TOKEN_FILE', path.join(SECRETS_DIR, 'vigil_agent_token'));
  if (!token) throw new SettingError('VIGIL_AGENT_TOKEN_FILE', `an agent key (scope agent) is required in ${SECRETS_DIR}/vigil_agent_token.`);
  const mode = (env.VIGIL_AGENT_MODE?.trim() || 'local') as AgentSettings['mode'];
  if (mode !== 'local' && mode !== 'delegated') throw new SettingError('VIGIL_AGENT_MODE', 'local or delegated.');
  const duration = (name: string, fallback: string) => parseDuration(name, env[name]?.trim() || fallback);
  const waitMs = duration('VIGIL_AGENT_WAIT', '30s');
  if (waitMs > 30_000) throw new SettingError('VIGIL_AGENT_WAIT', 'the long-poll wait is 0 to 30 seconds.');
  const workDir = env.VIGIL_AGENT_WORK_DIR?.trim() || '/var/lib/vigil/agent-work';
  return {
    url, token, mode, waitMs,
    signingKey: secret(env, 'VIGIL_AGENT_SIGNING_KEY', 'VIGIL_AGENT_SIGNING_KEY_FILE', path.join(SECRETS_DIR, 'vigil_agent_signing_key')),
    labels: (env.VIGIL_AGENT_LABELS ?? '').split(',').map((l) => l.trim()).filter(Boolean),
    retryMs: duration('VIGIL_AGENT_RETRY', '10s'),
    heartbeatMs: duration('VIGIL_AGENT_HEARTBEAT', '60s'),
    scanners: { ...loadScannerSettings(env, workDir), workDir: path.resolve(workDir) },
  };
}
