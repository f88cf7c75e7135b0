import { FeedSync } from '../../application/enrichment/feed-sync';
import { GateReads } from '../../application/gate/gate-reads';
import { GateService } from '../../application/gate/gate-service';
import { BacklogVersion } from '../../application/gate/verdict-cache';
import { BadgeService } from '../../application/scorecards/badge-service';
import { remediationWindowsOf } from '../../application/triage/remediation-windows';
import { randomBadgeTokens } from '../../infrastructure/crypto/badge-tokens';
import { allProjections } from '../../projections';
import { BadgeQueries } from '../../projections/scorecards/badge-queries';
import { ScorecardFigures } from '../../projections/scorecards/figures';
import { ScorecardQueries } from '../../projections/scorecards/queries';
import { SqlScanStatus } from '../../projections/scorecards/scan-status';
import { Core } from './core';
import { IdentityContext } from './identity';

/** The projections that write `issues`: their handled_position is the backlog's version (gate cache, ADR 0008). */
const ISSUE_PROJECTIONS = allProjections.filter((p) => p.tables.includes('issues')).map((p) => p.name);

/** What reads the backlog to judge it: the CI gate, the scorecards, and the KEV and EPSS feeds that enrich it. */
export function composeGate(core: Core) {
  const version = new BacklogVersion(core.db, ISSUE_PROJECTIONS);
  return { gate: new GateService(core.db, core.visibility, core.commands, core.ids, new GateReads(core.db, version), version) };
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
  return { feeds: new FeedSync(core.db, core.commands, core.ids, core.clock, core.config.feeds, core.log) };
}
