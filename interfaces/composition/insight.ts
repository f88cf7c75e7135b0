import { FeedSync } from '../../application/enrichment/feed-sync';
import { GateReads } from '../../application/gate/gate-reads';
import { GateService } from '../../application/gate/gate-service';
import { BacklogVersion } from '../../application/gate/verdict-cache';
import { SqlScanStatus } from '../../application/scorecards/scan-status';
import { ScorecardService } from '../../application/scorecards/scorecard-service';
import { allProjections } from '../../projections';
import { Core } from './core';
import { IdentityContext } from './identity';

/** The projections that write `issues`: their handled_position is the backlog's version (gate cache, ADR 0008). */
const ISSUE_PROJECTIONS = allProjections.filter((p) => p.tables.includes('issues')).map((p) => p.name);

/** What reads the backlog to judge it: the CI gate, the scorecards, and the KEV and EPSS feeds that enrich it. */
export function composeGate(core: Core) {
  const version = new BacklogVersion(core.db, ISSUE_PROJECTIONS);
  return { gate: new GateService(core.db, core.visibility, core.commands, core.ids, new GateReads(core.db, version), version) };
}

export function composeScorecards(core: Core, identity: IdentityContext) {
  return { scorecards: new ScorecardService(core.db, core.visibility, core.commands, core.ids, identity.settings, core.clock, new SqlScanStatus(core.db)) };
}

export function composeEnrichment(core: Core) {
  return { feeds: new FeedSync(core.db, core.commands, core.ids, core.clock, core.config.feeds, core.log) };
}
