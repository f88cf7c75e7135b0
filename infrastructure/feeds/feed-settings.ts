import { parseBoolean, parseDuration, parseSize, SettingError } from '../config/units';

/**
 * The enrichment feed settings (spec 1 §8.3, S1.8.3-49 and S1.8.3-54), read by loadConfig and
 * validated at start like every other setting (README "Settings").
 */
export interface FeedSettings {
  /** VIGIL_KEV_URL: the CISA catalogue (JSON) or a mirror of it. */
  kevUrl: string;
  /** VIGIL_EPSS_URL: FIRST's daily scores (CSV, gzip or plain) or a mirror of them. */
  epssUrl: string;
  /** VIGIL_KEV_ALLOW_PRIVATE / VIGIL_EPSS_ALLOW_PRIVATE: one switch per feed, both false by default. */
  kevAllowPrivate: boolean;
  epssAllowPrivate: boolean;
  /** VIGIL_FEED_INTERVAL: the synchronisation loop; 0 switches the loop off (POST /feeds/sync only). */
  intervalMs: number;
  /** VIGIL_FEED_TIMEOUT: one download, headers and body. */
  timeoutMs: number;
  /** VIGIL_KEV_MAX_DOWNLOAD / VIGIL_EPSS_MAX_DOWNLOAD: bytes read from the network before a download is stopped. */
  kevMaxBytes: number;
  epssMaxBytes: number;
}

export const DEFAULT_KEV_URL = 'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json';
export const DEFAULT_EPSS_URL = 'https://epss.empiricalsecurity.com/epss_scores-current.csv.gz';

type Env = Record<string, string | undefined>;

const MINUTE = 60_000;

export function loadFeedSettings(env: Env): FeedSettings {
  const read = (name: string) => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const bool = (name: string) => (read(name) === undefined ? false : parseBoolean(name, read(name)!));
  const interval = parseDuration('VIGIL_FEED_INTERVAL', read('VIGIL_FEED_INTERVAL') ?? '24h');
  if (interval !== 0 && interval < MINUTE) throw new SettingError('VIGIL_FEED_INTERVAL', `${interval} ms is too short; write at least 1m, or 0s to synchronise only on POST /feeds/sync.`);
  const timeout = parseDuration('VIGIL_FEED_TIMEOUT', read('VIGIL_FEED_TIMEOUT') ?? '5m');
  if (timeout < 1000 || timeout > 60 * MINUTE) throw new SettingError('VIGIL_FEED_TIMEOUT', 'write a duration from 1s to 1h, e.g. 5m.');
  return {
    kevUrl: feedUrl('VIGIL_KEV_URL', read('VIGIL_KEV_URL') ?? DEFAULT_KEV_URL),
    epssUrl: feedUrl('VIGIL_EPSS_URL', read('VIGIL_EPSS_URL') ?? DEFAULT_EPSS_URL),
    kevAllowPrivate: bool('VIGIL_KEV_ALLOW_PRIVATE'),
    epssAllowPrivate: bool('VIGIL_EPSS_ALLOW_PRIVATE'),
    intervalMs: interval,
    timeoutMs: timeout,
    kevMaxBytes: boundedSize('VIGIL_KEV_MAX_DOWNLOAD', read('VIGIL_KEV_MAX_DOWNLOAD') ?? '32MB'),
    epssMaxBytes: boundedSize('VIGIL_EPSS_MAX_DOWNLOAD', read('VIGIL_EPSS_MAX_DOWNLOAD') ?? '128MB'),
  };
}

function feedUrl(setting: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SettingError(setting, 'the value is not a URL; write the http(s) address of the feed or of its mirror.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SettingError(setting, 'only http and https feeds are downloaded.');
  if (!url.hostname) throw new SettingError(setting, 'the URL names no host.');
  return url.toString();
}

function boundedSize(setting: string, text: string): number {
  const bytes = parseSize(setting, text);
  if (bytes < 1024 || bytes > 1024 ** 3) throw new SettingError(setting, 'write a size from 1KB to 1GB.');
  return bytes;
}
