import { BacklogService } from '../../application/backlog/backlog-service';
import { CommandHandler } from '../../application/command-handler';
import { ImportAccess } from '../../application/imports/import-access';
import { SarifImportService } from '../../application/imports/sarif-import';
import type { BuildSbomImportService } from '../../application/imports/build-sbom-import';
import type { CoverageImportService } from '../../application/imports/coverage-import';
import type { TestReportImportService } from '../../application/imports/test-report-import';
import { SourceService } from '../../application/sources/source-service';
import { IdentityService } from '../../application/identity/identity-service';
import { TeamService } from '../../application/identity/team-service';
import { SettingsService } from '../../application/settings/settings-service';
import { Clock } from '../../application/ports/clock';
import { EventStore } from '../../application/ports/event-store';
import { Config } from '../../infrastructure/config/config';
import { Database } from '../../infrastructure/db/database';
import { ProjectionRunner } from '../../projections/engine/projection-runner';
import type { AccountQueries } from '../../projections/identity/account-queries';
import type { KeyQueries } from '../../projections/identity/key-queries';
import type { SettingsQueries } from '../../projections/identity/settings-queries';
import type { TeamQueries } from '../../projections/identity/team-queries';
import type { ExceptionQueries } from '../../projections/backlog/exception-queries';
import type { IssueQueries } from '../../projections/backlog/issue-queries';
import type { ImportQueries } from '../../projections/imports/queries';
import type { TargetService } from '../../application/targets/target-service';
import type { ScanService } from '../../application/scans/scan-service';
import type { ScanQueries } from '../../projections/scans/queries';
import type { ScanLifecycle } from '../../application/scans/scan-lifecycle';
import type { ScanWorker } from '../../application/scans/scan-worker';
import type { ScanScheduler } from '../../application/scans/scan-scheduler';
import type { BadgeService } from '../../application/scorecards/badge-service';
import type { BadgeQueries } from '../../projections/scorecards/badge-queries';
import type { ScorecardQueries } from '../../projections/scorecards/queries';
import type { GateService } from '../../application/gate/gate-service';
import type { VerdictQueries } from '../../projections/gate/verdict-queries';
import type { DeadlineWatch } from '../../application/triage/deadline-watch';
import type { ReviewScheduler } from '../../application/triage/review-scheduler';
import type { TriageService } from '../../application/triage/triage-service';
import type { FeedSync } from '../../application/enrichment/feed-sync';
import type { FeedQueries } from '../../projections/enrichment/queries';
import type { CredentialService } from '../../application/credentials/credential-service';
import type { TargetQueries } from '../../projections/targets/queries';
import type { PortfolioQueries } from '../../projections/targets/portfolio-queries';
import type { CredentialQueries } from '../../projections/credentials/queries';
import type { SourceQueries } from '../../projections/sources/queries';
import type { Logger } from 'winston';
import type { SiemService } from '../../application/siem/siem-service';
import type { SiemDeliverer } from '../../application/siem/siem-deliverer';
import type { SqlOutbox } from '../../projections/siem/outbox';
import type { PlatformKeys } from '../../application/signing/platform-keys';
import type { ExportService } from '../../application/exports/export-service';
import type { ByteSpools } from '../../application/exports/ports';
import type { IssueAsOfQueries } from '../../projections/backlog/issue-as-of';
import type { AgentService } from '../../application/agents/agent-service';
import type { JobSignal } from '../../application/agents/job-signal';
import type { AgentQueries } from '../../projections/agents/queries';
import type { SsoService } from '../../application/identity/sso-service';
import type { SecondFactorService } from '../../application/identity/second-factor-service';
import type { SecondFactorQueries } from '../../projections/identity/second-factor-queries';
import type { ScimService } from '../../application/identity/scim-service';
import type { ScimQueries } from '../../projections/identity/scim-queries';
import type { VigilMetrics } from '../../infrastructure/metrics/vigil-metrics';
import type { DataKeyCustody } from '../../application/credentials/data-key-custody';
import type { AuditService } from '../../application/audit/audit-service';
import type { AuditMirror } from '../../application/audit/audit-mirror';
import type { VexIngestService } from '../../application/exports/vex-ingest';
import type { EvidenceService } from '../../application/exports/evidence';

/** What the HTTP routes call: the application services, built by the container. */
export interface Services {
  config: Config;
  log: Logger;
  /** GET /metrics (issue #15). */
  metrics: VigilMetrics;
  clock: Clock;
  db: Database;
  store: EventStore;
  commands: CommandHandler;
  projections: ProjectionRunner;
  identity: IdentityService;
  accountQueries: AccountQueries;
  keyQueries: KeyQueries;
  teams: TeamService;
  teamQueries: TeamQueries;
  settings: SettingsService;
  settingsQueries: SettingsQueries;
  targets: TargetService;
  backlog: BacklogService;
  backlogQueries: IssueQueries;
  sources: SourceService;
  importAccess: ImportAccess;
  importQueries: ImportQueries;
  sarifImports: SarifImportService;
  coverageImports: CoverageImportService;
  testReportImports: TestReportImportService;
  buildSbomImports: BuildSbomImportService;
  triage: TriageService;
  exceptions: ExceptionQueries;
  reviewScheduler: ReviewScheduler;
  /** The hourly turn of remediation deadlines passing (VGL-SEC-030). */
  deadlineWatch: DeadlineWatch;
  gate: GateService;
  /** GET /gate/verdicts: the verdict register. */
  verdicts: VerdictQueries;
  feeds: FeedSync;
  scorecards: ScorecardQueries;
  badges: BadgeService;
  badgeQueries: BadgeQueries;
  /** GET /feeds: each feed's state. */
  feedStates: FeedQueries;
  scans: ScanService;
  scanQueries: ScanQueries;
  scanLifecycle: ScanLifecycle;
  scanWorker: ScanWorker;
  scanScheduler: ScanScheduler;
  credentials: CredentialService;
  targetQueries: TargetQueries;
  portfolioQueries: PortfolioQueries;
  credentialQueries: CredentialQueries;
  sourceQueries: SourceQueries;
  /** The SIEM export (issue #13): configuration and test, the outbox deliverer, the outbox listing. */
  siem: SiemService;
  siemDeliverer: SiemDeliverer;
  siemOutbox: SqlOutbox;
  /** The platform signing key (issue #11). */
  platformKeys: PlatformKeys;
  exports: ExportService;
  /** Where signed exports wait between signing and sending (memory, or a temporary file past 1 MB). */
  exportSpools: ByteSpools;
  /** GET /issues/{id}?as_of= */
  issueAsOf: IssueAsOfQueries;
  /** Remote agents (issue #12). */
  agents: AgentService;
  agentQueries: AgentQueries;
  agentJobSignal: JobSignal;
  /** Single sign-on (issue #14); null while VIGIL_OIDC_ISSUER is unset. */
  sso: SsoService | null;
  secondFactors: SecondFactorService;
  secondFactorQueries: SecondFactorQueries;
  /** SCIM 2.0 at /scim/v2 (issue #14). */
  scim: ScimService;
  scimQueries: ScimQueries;
  /** External key custody (issue #14); null with the local ENCRYPTION_KEY. */
  dataKeys: DataKeyCustody | null;
  /** Audit verification (a failure audited once) and the JSON-lines mirror, null unless VIGIL_AUDIT_MIRROR is set. */
  audit: AuditService;
  auditMirror: AuditMirror | null;
  /** POST /vex/ingest */
  vexIngest: VexIngestService;
  /** Evidence bundles per project. */
  evidence: EvidenceService;
}
