import { FEEDS, FeedName } from '../../domain/enrichment/feed-events';
import { Database } from '../../infrastructure/db/database';
import { feedStateRows } from './feed-reads';

export interface FeedView {
  feed: FeedName;
  /** Scheme, host and port of the configured URL (never its path or query, which may hold a token). */
  source: string;
  allowPrivate: boolean;
  synchronised: boolean;
  version: string | null;
  releasedAt: string | null;
  modelVersion: string | null;
  count: number | null;
  sha256: string | null;
  synchronisedAt: string | null;
  lastRefusal: { reason: string; at: string } | null;
}

/** Where each feed is configured to come from (VIGIL_KEV_URL, VIGIL_KEV_ALLOW_PRIVATE, and the EPSS pair). */
export type FeedOrigins = Record<FeedName, { url: string; allowPrivate: boolean }>;

/** GET /feeds: each feed's state from `feed_state`, a feed never synchronised included. */
export class FeedQueries {
  constructor(private readonly db: Database, private readonly origins: FeedOrigins) {}

  async state(): Promise<FeedView[]> {
    const rows = await feedStateRows(this.db);
    return FEEDS.map((feed) => {
      const r = rows.get(feed);
      return {
        feed, source: originOf(this.origins[feed].url), allowPrivate: this.origins[feed].allowPrivate,
        synchronised: Boolean(r?.version), version: r?.version ?? null, releasedAt: r?.released_at ?? null, modelVersion: r?.model_version ?? null,
        count: r?.count === null || r?.count === undefined ? null : Number(r.count), sha256: r?.sha256 ?? null, synchronisedAt: r?.synchronised_at ?? null,
        lastRefusal: r?.last_refusal ? { reason: r.last_refusal, at: r.last_refused_at ?? '' } : null,
      };
    });
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}
