import { BacklogService } from '../../application/backlog/backlog-service';
import { BuildSbomImportService } from '../../application/imports/build-sbom-import';
import { CoverageImportService } from '../../application/imports/coverage-import';
import { ImportAccess } from '../../application/imports/import-access';
import { SarifImportService } from '../../application/imports/sarif-import';
import { TestReportImportService } from '../../application/imports/test-report-import';
import { remediationWindowsOf } from '../../application/triage/remediation-windows';
import { ReviewScheduler } from '../../application/triage/review-scheduler';
import { DeadlineWatch } from '../../application/triage/deadline-watch';
import { SqlPassedDeadlines } from '../../projections/backlog/passed-deadlines';
import { TriageService } from '../../application/triage/triage-service';
import { reportParsers } from '../../infrastructure/parsers/report-parsers';
import { SqlDueReviews } from '../../projections/backlog/due-reviews';
import { ExceptionQueries } from '../../projections/backlog/exception-queries';
import { IssueQueries } from '../../projections/backlog/issue-queries';
import { SqlBacklogReader } from '../../projections/backlog/known-issues';
import { SqlImportRepositories } from '../../projections/imports/import-repositories';
import { importQueriesOf } from '../../projections/imports/queries';
import { Core } from './core';
import { IdentityContext } from './identity';
import { TargetsContext } from './targets';

/**
 * The backlog: one ingestion path and the issues' queries (projections/backlog), triage, and the
 * report imports that feed it (their parsers from infrastructure/parsers, their records' queries
 * from projections/imports).
 */
export function composeBacklog(core: Core, identity: IdentityContext, targets: TargetsContext) {
  const { db, commands, ids } = core;
  const backlog = new BacklogService(new SqlBacklogReader(db), commands, ids);
  const backlogQueries = new IssueQueries(db, core.visibility, core.store, async () => remediationWindowsOf(await identity.settings.all()));
  // The declared sources answer which source a key names (the sources context's reader).
  const importAccess = new ImportAccess(core.visibility, targets.sources, new SqlImportRepositories(db), commands);
  return {
    backlog, backlogQueries, importAccess, importQueries: importQueriesOf(db),
    triage: new TriageService(commands, backlogQueries, identity.settings, core.log),
    exceptions: new ExceptionQueries(db, core.visibility, core.store),
    reviewScheduler: new ReviewScheduler(new SqlDueReviews(db), commands, core.clock, core.log),
    // Remediation deadlines passing (VGL-SEC-030), hourly like the review dates.
    deadlineWatch: new DeadlineWatch(new SqlPassedDeadlines(db), identity.settings, commands, core.clock, core.log),
    sarifImports: new SarifImportService(importAccess, backlog, ids, reportParsers),
    coverageImports: new CoverageImportService(importAccess, commands, ids, reportParsers),
    testReportImports: new TestReportImportService(importAccess, commands, ids, reportParsers),
    buildSbomImports: new BuildSbomImportService(importAccess, commands, ids, reportParsers),
  };
}

export type BacklogContext = ReturnType<typeof composeBacklog>;
