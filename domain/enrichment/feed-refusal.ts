/**
 * Why a downloaded feed is not taken (spec 1 §8.3: a partial, older or malformed feed is refused
 * and the one in use is kept). The message is shown to administrators (GET /feeds) and recorded
 * in the FeedRefused event: a whole sentence, never a stack trace, never the feed's content and
 * never the configured URL (a mirror URL may carry a token in its query); hosts only.
 *
 * The feed adapters (infrastructure/feeds) throw it; the synchronisation (application/enrichment)
 * records it as FeedRefused and throws it itself for a feed older than, or partial beside, the one
 * in use. It is matched by class.
 */
export type RefusalKind = 'destination' | 'download' | 'malformed' | 'partial' | 'older' | 'too-large';

export class FeedRefusal extends Error {
  constructor(readonly kind: RefusalKind, message: string) {
    super(message);
    this.name = 'FeedRefusal';
  }
}

export const refuseFeed = (kind: RefusalKind, message: string): never => {
  throw new FeedRefusal(kind, message);
};
