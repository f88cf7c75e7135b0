import type { EpssFile, FeedSource, FeedSources, KevCatalogue } from '../../application/enrichment/ports';
import type { FeedName } from '../../domain/enrichment/feed-events';
import type { Lookup } from './destination-guard';
import { EpssLimits, readEpssScores } from './epss-scores';
import type { FeedSettings } from './feed-settings';
import { download, DownloadOptions, downloadAll } from './http-download';
import { parseKevCatalogue } from './kev-catalogue';

/** Tests: name resolution for the destination guard, bounds of the EPSS reader. */
export interface FeedSourceOptions {
  lookup?: Lookup;
  epssLimits?: Partial<EpssLimits>;
}

/** The download of one feed as its settings bound it (VIGIL_FEED_TIMEOUT, VIGIL_*_MAX_DOWNLOAD, VIGIL_*_ALLOW_PRIVATE). */
function downloadOptions(feed: FeedName, settings: FeedSettings, lookup: Lookup | undefined, signal: AbortSignal): DownloadOptions {
  const kev = feed === 'kev';
  return {
    label: kev ? 'The KEV catalogue' : 'The EPSS file',
    allowPrivate: kev ? settings.kevAllowPrivate : settings.epssAllowPrivate,
    switchName: kev ? 'VIGIL_KEV_ALLOW_PRIVATE' : 'VIGIL_EPSS_ALLOW_PRIVATE',
    timeoutMs: settings.timeoutMs,
    maxBytes: kev ? settings.kevMaxBytes : settings.epssMaxBytes,
    accept: kev ? 'application/json' : 'application/gzip, text/csv, */*',
    lookup,
    signal,
  };
}

/** VIGIL_KEV_URL: the whole catalogue in memory (about 1.3 MB; the bound applies while reading), then parsed and checked. */
export class KevDownload implements FeedSource<KevCatalogue> {
  constructor(private readonly settings: FeedSettings, private readonly options: FeedSourceOptions = {}) {}

  async fetch(signal: AbortSignal): Promise<KevCatalogue> {
    return parseKevCatalogue(await downloadAll(this.settings.kevUrl, downloadOptions('kev', this.settings, this.options.lookup, signal)));
  }
}

/** VIGIL_EPSS_URL: the scores read as they stream in (inflated on the way when compressed). */
export class EpssDownload implements FeedSource<EpssFile> {
  constructor(private readonly settings: FeedSettings, private readonly options: FeedSourceOptions = {}) {}

  fetch(signal: AbortSignal): Promise<EpssFile> {
    return readEpssScores(download(this.settings.epssUrl, downloadOptions('epss', this.settings, this.options.lookup, signal)), this.options.epssLimits);
  }
}

export function feedSources(settings: FeedSettings, options: FeedSourceOptions = {}): FeedSources {
  return { kev: new KevDownload(settings, options), epss: new EpssDownload(settings, options) };
}
