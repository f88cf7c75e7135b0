import { Type } from '@sinclair/typebox';
import { RouteDef } from '../route';
import { Services } from '../services';

const Feed = Type.Union([Type.Literal('kev'), Type.Literal('epss')]);
const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()]);

const FeedView = Type.Object({
  feed: Feed, source: Type.String(), allowPrivate: Type.Boolean(), synchronised: Type.Boolean(),
  version: Nullable(Type.String()), releasedAt: Nullable(Type.String()), modelVersion: Nullable(Type.String()),
  count: Type.Union([Type.Integer(), Type.Null()]), sha256: Nullable(Type.String()), synchronisedAt: Nullable(Type.String()),
  lastRefusal: Type.Union([Type.Object({ reason: Type.String(), at: Type.String() }), Type.Null()]),
});
const Outcome = Type.Object({
  feed: Feed, outcome: Type.Union([Type.Literal('accepted'), Type.Literal('unchanged'), Type.Literal('refused')]),
  reason: Nullable(Type.String()), version: Nullable(Type.String()), count: Type.Union([Type.Integer(), Type.Null()]),
  signalled: Type.Optional(Type.Integer()),
});

const rolesDetail = 'Only an administrator reads and synchronises the enrichment feeds.';

/**
 * The enrichment feeds (spec 1 §1.4, §8.3): their state, and a synchronisation on demand beside
 * the loop (VIGIL_FEED_INTERVAL). A refused feed is an answer (200, outcome refused, with the
 * reason), not an error: the feed in use is kept.
 */
export function feedRoutes(s: Services): RouteDef[] {
  return [
    {
      method: 'get', path: '/feeds', tag: 'Operations', summary: 'KEV and EPSS feeds: version in use, synchronised at, count, last refusal',
      auth: { scope: 'read', roles: ['administrator'], rolesDetail },
      responses: { 200: { description: 'One entry per feed', schema: Type.Array(FeedView) } },
      handler: async () => s.feedStates.state(),
    },
    {
      method: 'post', path: '/feeds/sync', tag: 'Operations', summary: 'Synchronise the KEV and EPSS feeds now (or the one named by ?feed=); answers each outcome and the state',
      auth: { sessionOnly: true, roles: ['administrator'], rolesDetail },
      query: Type.Object({ feed: Type.Optional(Feed) }),
      responses: { 200: { description: 'Outcomes and feed state', schema: Type.Object({ outcomes: Type.Array(Outcome), feeds: Type.Array(FeedView) }) } },
      handler: async (req) => {
        const feed = (req.query as { feed?: 'kev' | 'epss' }).feed;
        const outcomes = await s.feeds.sync(req.ctx!, feed ? [feed] : ['kev', 'epss']);
        return { outcomes, feeds: await s.feedStates.state() };
      },
    },
  ];
}
