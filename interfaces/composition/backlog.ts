import { BacklogService } from '../../application/backlog/backlog-service';
import { BuildSbomImportService } from '../../application/imports/build-sbom-import';
import { CoverageImportService } from '../../application/imports/coverage-import';
import { ImportAccess } from '../../application/imports/import-access';
import { SarifImportService } from '../../application/imports/sarif-import';
import { TestReportImportService } from '../../application/imports/test-report-import';
import { remediationWindowsOf } from '../../application/triage/remediation-windows';
import { ReviewScheduler } from '../../application/triage/review-scheduler';
import { TriageService } from '../../application/triage/triage-service';
import { SqlDueReviews } from '../../projections/backlog/due-reviews';
import { ExceptionQueries } from '../../projections/backlog/exception-queries';
import { IssueQueries } from '../../projections/backlog/issue-queries';
import { SqlBacklogReader } from '../../projections/backlog/known-issues';
import { Core } from './core';
import { IdentityContext } from './identity';
import { TargetsContext } from './targets';

/** The backlog: one ingestion path, the report imports that feed it, the issues' queries and triage. */
export function composeBacklog(core: Core, identity: IdentityContext, targets: TargetsContext) {
  const { db, commands, ids } = core;
  const backlog = new BacklogService(new SqlBacklogReader(db), commands, ids);
  const backlogQueries = new IssueQueries(db, core.visibility, core.store, async () => remediationWindowsOf(await identity.settings.all()));
  const importAccess = new ImportAccess(db, core.visibility, targets.sources, commands);
  return {
    backlog, backlogQueries, importAccess,
    triage: new TriageService(commands, backlogQueries, identity.settings, core.log),
    exceptions: new ExceptionQueries(db, core.visibility, core.store),
    reviewScheduler: new ReviewScheduler(new SqlDueReviews(db), commands, core.clock, core.log),
    sarifImports: new SarifImportService(db, importAccess, backlog, ids),
    coverageImports: new CoverageImportService(db, importAccess, commands, ids),
    testReportImports: new TestReportImportService(db, importAccess, commands, ids),
    buildSbomImports: new BuildSbomImportService(db, importAccess, commands, ids),
  };
}

export type BacklogContext = ReturnType<typeof composeBacklog>;
