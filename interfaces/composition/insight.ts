import { FeedSync } from '../../application/enrichment/feed-sync';
import { GateService } from '../../application/gate/gate-service';
import { SqlScanStatus } from '../../application/scorecards/scan-status';
import { ScorecardService } from '../../application/scorecards/scorecard-service';
import { feedSources } from '../../infrastructure/feeds/feed-sources';
import { SqlEpssGenerations } from '../../infrastructure/feeds/epss-table';
import { allProjections } from '../../projections';
import { SqlFeedReads } from '../../projections/enrichment/feed-reads';
import { FeedQueries } from '../../projections/enrichment/queries';
import { SqlBacklogVersion } from '../../projections/gate/backlog-version';
import { SqlGateReads } from '../../projections/gate/gate-reads';
import { VerdictQueries } from '../../projections/gate/verdict-queries';
import { Core } from './core';
import { IdentityContext } from './identity';

/** The projections that write `issues`: their handled_position is the backlog's version (gate cache, ADR 0008). */
const ISSUE_PROJECTIONS = allProjections.filter((p) => p.tables.includes('issues')).map((p) => p.name);

/** What reads the backlog to judge it: the CI gate, the scorecards, and the KEV and EPSS feeds that enrich it. */
export function composeGate(core: Core) {
  const version = new SqlBacklogVersion(core.db, ISSUE_PROJECTIONS);
  return {
    gate: new GateService(core.visibility, core.commands, core.ids, new SqlGateReads(core.db, version), version),
    verdicts: new VerdictQueries(core.db, core.visibility),
  };
}

export function composeScorecards(core: Core, identity: IdentityContext) {
  return { scorecards: new ScorecardService(core.db, core.visibility, core.commands, core.ids, identity.settings, core.clock, new SqlScanStatus(core.db)) };
}

export function composeEnrichment(core: Core) {
  const settings = core.config.feeds;
  return {
    feeds: new FeedSync(
      core.commands, core.ids, core.clock, feedSources(settings), new SqlFeedReads(core.db), new SqlEpssGenerations(core.db), { intervalMs: settings.intervalMs }, core.log,
    ),
    feedStates: new FeedQueries(core.db, {
      kev: { url: settings.kevUrl, allowPrivate: settings.kevAllowPrivate },
      epss: { url: settings.epssUrl, allowPrivate: settings.epssAllowPrivate },
    }),
  };
}
