import { FeedSync } from '../../application/enrichment/feed-sync';
import { GateService } from '../../application/gate/gate-service';
import { BadgeService } from '../../application/scorecards/badge-service';
import { remediationWindowsOf } from '../../application/triage/remediation-windows';
import { randomBadgeTokens } from '../../infrastructure/crypto/badge-tokens';
import { allProjections } from '../../projections';
import { BadgeQueries } from '../../projections/scorecards/badge-queries';
import { ScorecardFigures } from '../../projections/scorecards/figures';
import { ScorecardQueries } from '../../projections/scorecards/queries';
import { SqlScanStatus } from '../../projections/scorecards/scan-status';
import { feedSources } from '../../infrastructure/feeds/feed-sources';
import { SqlEpssGenerations } from '../../infrastructure/feeds/epss-table';
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

/** Scorecards and dashboards are queries of projections/scorecards; badge tokens are commands (their token from infrastructure/crypto). */
export function composeScorecards(core: Core, identity: IdentityContext) {
  const scanStatus = new SqlScanStatus(core.db);
  const remediation = { windows: async () => remediationWindowsOf(await identity.settings.all()) };
  const figures = new ScorecardFigures(core.db, scanStatus, remediation, core.clock);
  const badgeQueries = new BadgeQueries(core.db, figures);
  return {
    scorecards: new ScorecardQueries(core.db, core.visibility, figures, scanStatus, core.clock),
    badgeQueries,
    badges: new BadgeService(core.commands, core.ids, badgeQueries, randomBadgeTokens),
  };
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
