import * as fs from 'node:fs';
import { parseDuration, SettingError } from './units';

/**
 * Running Vigil as a service (issue #15, docs/deployment.md): how long a stop waits for requests in
 * flight, and who may read GET /metrics.
 */
export interface OpsSettings {
  /** VIGIL_SHUTDOWN_TIMEOUT: on SIGTERM, how long requests in flight may take before connections are cut. */
  shutdownTimeoutMs: number;
  /**
   * VIGIL_METRICS_TOKEN / VIGIL_METRICS_TOKEN_FILE: the bearer token a Prometheus scraper sends to
   * GET /metrics. Unset: /metrics answers 404 (the figures say how busy and how large an
   * installation is, so they are not public by default, and a scraper needs no Vigil account).
   */
  metricsToken: string | null;
  /**
   * VIGIL_HTTP_KEEP_ALIVE_TIMEOUT: how long an idle kept-alive connection stays open. Longer than the
   * idle timeout of the proxies and load balancers usually in front (60 s), so that the server never
   * closes a connection a client or proxy is just reusing: that race answers the request with a reset.
   */
  keepAliveTimeoutMs: number;
}

type Env = Record<string, string | undefined>;

export function loadOpsSettings(env: Env): OpsSettings {
  const read = (name: string) => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const timeout = parseDuration('VIGIL_SHUTDOWN_TIMEOUT', read('VIGIL_SHUTDOWN_TIMEOUT') ?? '30s');
  if (timeout < 0 || timeout > 3_600_000) throw new SettingError('VIGIL_SHUTDOWN_TIMEOUT', 'write a duration from 0s to 1h, e.g. 30s.');
  const keepAlive = parseDuration('VIGIL_HTTP_KEEP_ALIVE_TIMEOUT', read('VIGIL_HTTP_KEEP_ALIVE_TIMEOUT') ?? '65s');
  if (keepAlive < 1_000 || keepAlive > 600_000) throw new SettingError('VIGIL_HTTP_KEEP_ALIVE_TIMEOUT', 'write a duration from 1s to 10m, e.g. 65s.');
  return { shutdownTimeoutMs: timeout, keepAliveTimeoutMs: keepAlive, metricsToken: metricsToken(read('VIGIL_METRICS_TOKEN'), read('VIGIL_METRICS_TOKEN_FILE')) };
}

function metricsToken(text: string | undefined, file: string | undefined): string | null {
  if (text && file) throw new SettingError('VIGIL_METRICS_TOKEN', 'set VIGIL_METRICS_TOKEN or VIGIL_METRICS_TOKEN_FILE, not both.');
  let token = text;
  if (file) {
    try {
      token = fs.readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw new SettingError('VIGIL_METRICS_TOKEN_FILE', `cannot read ${file}: ${(error as Error).message}`);
    }
  }
  if (token === undefined) return null;
  if (!/^[\x21-\x7e]{24,256}$/.test(token)) {
    throw new SettingError(file ? 'VIGIL_METRICS_TOKEN_FILE' : 'VIGIL_METRICS_TOKEN', 'expected 24 to 256 visible ASCII characters, e.g. the output of `openssl rand -hex 24`.');
  }
  return token;
}
