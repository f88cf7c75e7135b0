import 'reflect-metadata';
import { Container } from 'inversify';
import type { Logger } from 'winston';
import { BacklogService } from '../application/backlog/backlog-service';
import { IssueQueries } from '../application/backlog/issue-queries';
import { CommandHandler, ReadModelBarrier } from '../application/command-handler';
import { ImportAccess } from '../application/imports/import-access';
import { SarifImportService } from '../application/imports/sarif-import';
import { BuildSbomImportService } from '../application/imports/build-sbom-import';
import { CoverageImportService } from '../application/imports/coverage-import';
import { TestReportImportService } from '../application/imports/test-report-import';
import { SourceService } from '../application/sources/source-service';
import { IdentityService } from '../application/identity/identity-service';
import { SignInThrottle } from '../application/identity/sign-in-throttle';
import { TeamService } from '../application/identity/team-service';
import { Clock, systemClock } from '../application/ports/clock';
import { EventStore } from '../application/ports/event-store';
import { IdGenerator } from '../application/ports/ids';
import { SettingsService } from '../application/settings/settings-service';
import { TargetService } from '../application/targets/target-service';
import { ArtifactNormaliser, ScanExecutor } from '../application/ports/scanning';
import { BackgroundLease, ScanLeases } from '../application/scans/scan-leases';
import { ScanLifecycle } from '../application/scans/scan-lifecycle';
import { ScanScheduler } from '../application/scans/scan-scheduler';
import { ScanService } from '../application/scans/scan-service';
import { ScanWorker } from '../application/scans/scan-worker';
import { createDockerScanExecutor } from './scanning/executor';
import { CloneGuard } from './scanning/clone-guard';
import { CredentialService } from '../application/credentials/credential-service';
import { CloneCredentials } from '../application/credentials/clone-credentials';
import { SecretBox } from '../application/ports/secret-box';
import { AesGcmSecretBox } from './crypto/secret-box';
import { ScannerOutputNormaliser } from './scanning/normalise';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { SqlScanStatus } from '../application/scorecards/scan-status';
import { ScorecardService } from '../application/scorecards/scorecard-service';
import { GateService } from '../application/gate/gate-service';
import { GateReads } from '../application/gate/gate-reads';
import { BacklogVersion } from '../application/gate/verdict-cache';
import { ExceptionQueries } from '../application/triage/exception-queries';
import { remediationWindowsOf } from '../application/triage/remediation-windows';
import { ReviewScheduler } from '../application/triage/review-scheduler';
import { TriageService } from '../application/triage/triage-service';
import { FeedSync } from '../application/enrichment/feed-sync';
import { Services } from '../interfaces/http/services';
import { runMigrations } from '../migrations';
import { allProjections } from '../projections';
import { ProjectionRunner } from '../projections/engine/projection-runner';
import { Config } from './config/config';
import { Database, openDatabase } from './db/database';
import { SqlIdGenerator } from './db/sql-id-generator';
import { EsdbEventStore } from './eventstore/esdb-event-store';
import { SqlEventStore } from './eventstore/sql-event-store';
import { createLogger } from './logging/logger';

/** Binding names of the composition root. */
export const TOKENS = {
  Config: Symbol.for('Config'), Logger: Symbol.for('Logger'), Clock: Symbol.for('Clock'), Database: Symbol.for('Database'),
  EventStore: Symbol.for('EventStore'), IdGenerator: Symbol.for('IdGenerator'), Projections: Symbol.for('Projections'),
  Commands: Symbol.for('Commands'), Identity: Symbol.for('Identity'), Teams: Symbol.for('Teams'), Settings: Symbol.for('Settings'), Targets: Symbol.for('Targets'),
  Backlog: Symbol.for('Backlog'), Issues: Symbol.for('Issues'), Sources: Symbol.for('Sources'), ImportAccess: Symbol.for('ImportAccess'), SarifImports: Symbol.for('SarifImports'),
  CoverageImports: Symbol.for('CoverageImports'), TestReportImports: Symbol.for('TestReportImports'), BuildSbomImports: Symbol.for('BuildSbomImports'),
  Triage: Symbol.for('Triage'), Exceptions: Symbol.for('Exceptions'), ReviewScheduler: Symbol.for('ReviewScheduler'),
  Gate: Symbol.for('Gate'),
  Feeds: Symbol.for('Feeds'),
  Scorecards: Symbol.for('Scorecards'),
  Scans: Symbol.for('Scans'), ScanLeases: Symbol.for('ScanLeases'), ScanLifecycle: Symbol.for('ScanLifecycle'), ScanWorker: Symbol.for('ScanWorker'), ScanScheduler: Symbol.for('ScanScheduler'),
  ScanExecutor: Symbol.for('ScanExecutor'), ArtifactNormaliser: Symbol.for('ArtifactNormaliser'),
  SecretBox: Symbol.for('SecretBox'), Credentials: Symbol.for('Credentials'),
} as const;

export interface Overrides {
  clock?: Clock;
  database?: Database;
  logger?: Logger;
  /** The scan executor and normaliser (specs stand in for Docker at the port); null binds none (the worker stays off). */
  scanExecutor?: ScanExecutor | null;
  normaliser?: ArtifactNormaliser | null;
}

/**
 * The composition root: adapters chosen from the configuration (PGlite, PostgreSQL or MySQL for
 * read models; the SQL table or EventStoreDB for events), application services wired to them.
 * Classes stay free of container decorators; bindings are factories here.
 */
/** The projections that write `issues`: their handled_position is the backlog's version (gate cache, ADR 0008). */
const ISSUE_PROJECTIONS = allProjections.filter((p) => p.tables.includes('issues')).map((p) => p.name);

export function buildContainer(config: Config, overrides: Overrides = {}): Container {
  const c = new Container({ defaultScope: 'Singleton' });
  c.bind(TOKENS.Config).toConstantValue(config);
  c.bind(TOKENS.Logger).toConstantValue(overrides.logger ?? createLogger(config.logLevel, config.logFormat));
  c.bind(TOKENS.Clock).toConstantValue(overrides.clock ?? systemClock);
  c.bind(TOKENS.Database).toConstantValue(overrides.database ?? openDatabase(config.database));
  c.bind(TOKENS.EventStore).toDynamicValue((ctx) => {
    const db = ctx.container.get<Database>(TOKENS.Database);
    return config.eventStoreUrl ? new EsdbEventStore(config.eventStoreUrl) : new SqlEventStore(db);
  });
  c.bind(TOKENS.IdGenerator).toDynamicValue((ctx) => new SqlIdGenerator(ctx.container.get(TOKENS.Database)));
  c.bind(TOKENS.Projections).toDynamicValue((ctx) => {
    const store = ctx.container.get<EventStore & { readAll: SqlEventStore['readAll'] }>(TOKENS.EventStore);
    const log = ctx.container.get<Logger>(TOKENS.Logger);
    return new ProjectionRunner(ctx.container.get(TOKENS.Database), store as never, allProjections, {
      sourceIsDatabase: !config.eventStoreUrl,
      onError: (e, name) => log.error(`Projection ${name} failed; it retries from its checkpoint`, { error: e.stack }),
      onFailure: (f) => log.error(
        `Projection ${f.projection} cannot take the event at position ${f.position} (${f.type}, stream ${f.stream}): ${f.error}. Recorded in projection_failures and skipped; see GET /health.`,
        { projection: f.projection, position: f.position, commit: f.commit, eventId: f.eventId, type: f.type, stream: f.stream },
      ),
    });
  });
  c.bind(TOKENS.Commands).toDynamicValue((ctx) => {
    const runner = ctx.container.get<ProjectionRunner>(TOKENS.Projections);
    const log = ctx.container.get<Logger>(TOKENS.Logger);
    const barrier: ReadModelBarrier = {
      async waitFor(result, types) {
        const reached = await runner.waitFor(result.cursor, types, config.readYourWritesTimeoutMs);
        if (!reached) log.warn('Read models did not reach a command\'s events in time; the answer may precede them', { cursor: result.cursor });
      },
    };
    return new CommandHandler(ctx.container.get(TOKENS.EventStore), ctx.container.get(TOKENS.IdGenerator), barrier);
  });
  c.bind(TOKENS.Identity).toDynamicValue((ctx) => new IdentityService(
    ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.Commands), ctx.container.get(TOKENS.IdGenerator), ctx.container.get(TOKENS.Clock),
    { lifetimeMs: config.sessionLifetimeMs, idleMs: config.sessionIdleMs, passwordLogin: config.passwordLogin, oidcIssuer: config.oidcIssuer },
    new SignInThrottle(config.signInThrottle),
  ));
  c.bind(TOKENS.Teams).toDynamicValue((ctx) => new TeamService(ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.Commands), ctx.container.get(TOKENS.IdGenerator)));
  c.bind(TOKENS.Settings).toDynamicValue((ctx) => new SettingsService(ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.Commands)));
  c.bind(TOKENS.Targets).toDynamicValue((ctx) => new TargetService(
    ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.Commands), ctx.container.get(TOKENS.IdGenerator),
    ctx.container.get(TOKENS.Identity), ctx.container.get(TOKENS.Settings), ctx.container.get(TOKENS.Config),
    // The clone guard on entry (spec 1 §8.3 "checked on entry and before each scan"); the executor builds its own for the scan-time check.
    new CloneGuard({ allowedHosts: config.scanners.gitAllowedHosts }),
  ));
  // Stored clone credentials sealed under ENCRYPTION_KEY (VIGIL_PREVIOUS_ENCRYPTION_KEYS open older ones).
  c.bind(TOKENS.SecretBox).toConstantValue(new AesGcmSecretBox(config.encryptionKey, config.previousEncryptionKeys));
  c.bind(TOKENS.Credentials).toDynamicValue((ctx) => new CredentialService(
    ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.Commands), ctx.container.get(TOKENS.IdGenerator), ctx.container.get(TOKENS.SecretBox),
  ));
  c.bind(TOKENS.Backlog).toDynamicValue((ctx) => new BacklogService(ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.Commands), ctx.container.get(TOKENS.IdGenerator)));
  c.bind(TOKENS.Issues).toDynamicValue((ctx) => new IssueQueries(ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.EventStore),
    async () => remediationWindowsOf(await ctx.container.get<SettingsService>(TOKENS.Settings).all())));
  c.bind(TOKENS.Triage).toDynamicValue((ctx) => new TriageService(ctx.container.get(TOKENS.Commands), ctx.container.get(TOKENS.Issues), ctx.container.get(TOKENS.Settings), ctx.container.get(TOKENS.Logger)));
  c.bind(TOKENS.Exceptions).toDynamicValue((ctx) => new ExceptionQueries(ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.EventStore)));
  c.bind(TOKENS.ReviewScheduler).toDynamicValue((ctx) => new ReviewScheduler(ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.Commands), ctx.container.get(TOKENS.Clock), ctx.container.get(TOKENS.Logger)));
  c.bind(TOKENS.Sources).toDynamicValue((ctx) => new SourceService(ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.Commands), ctx.container.get(TOKENS.IdGenerator)));
  c.bind(TOKENS.ImportAccess).toDynamicValue((ctx) => new ImportAccess(ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.Sources), ctx.container.get(TOKENS.Commands)));
  c.bind(TOKENS.SarifImports).toDynamicValue((ctx) => new SarifImportService(ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.ImportAccess), ctx.container.get(TOKENS.Backlog), ctx.container.get(TOKENS.IdGenerator)));
  c.bind(TOKENS.CoverageImports).toDynamicValue((ctx) => new CoverageImportService(ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.ImportAccess), ctx.container.get(TOKENS.Commands), ctx.container.get(TOKENS.IdGenerator)));
  c.bind(TOKENS.TestReportImports).toDynamicValue((ctx) => new TestReportImportService(ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.ImportAccess), ctx.container.get(TOKENS.Commands), ctx.container.get(TOKENS.IdGenerator)));
  c.bind(TOKENS.BuildSbomImports).toDynamicValue((ctx) => new BuildSbomImportService(ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.ImportAccess), ctx.container.get(TOKENS.Commands), ctx.container.get(TOKENS.IdGenerator)));
  c.bind(TOKENS.Gate).toDynamicValue((ctx) => {
    const version = new BacklogVersion(ctx.container.get(TOKENS.Database), ISSUE_PROJECTIONS);
    return new GateService(
      ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.Commands), ctx.container.get(TOKENS.IdGenerator),
      new GateReads(ctx.container.get(TOKENS.Database), version), version,
    );
  });
  c.bind(TOKENS.Scorecards).toDynamicValue((ctx) => new ScorecardService(
    ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.Commands), ctx.container.get(TOKENS.IdGenerator), ctx.container.get(TOKENS.Settings),
    ctx.container.get(TOKENS.Clock), new SqlScanStatus(ctx.container.get(TOKENS.Database)),
  ));
  // The scan lifecycle (application/scans). The executor (git clone and the five scanners in Docker) and the
  // normaliser of their outputs come from infrastructure/scanning; an override of null binds none, and the
  // built-in worker then stays off with a log line.
  const executor = overrides.scanExecutor === undefined ? createDockerScanExecutor(config.scanners) : overrides.scanExecutor;
  const normaliser = overrides.normaliser === undefined ? new ScannerOutputNormaliser() : overrides.normaliser;
  if (executor) c.bind(TOKENS.ScanExecutor).toConstantValue(executor);
  if (normaliser) c.bind(TOKENS.ArtifactNormaliser).toConstantValue(normaliser);
  const instance = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  c.bind(TOKENS.ScanLeases).toDynamicValue((ctx) => new ScanLeases(ctx.container.get(TOKENS.Database)));
  c.bind(TOKENS.Scans).toDynamicValue((ctx) => new ScanService(
    ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.Commands), ctx.container.get(TOKENS.IdGenerator), ctx.container.get(TOKENS.Targets), ctx.container.get(TOKENS.ScanLeases),
  ));
  c.bind(TOKENS.ScanLifecycle).toDynamicValue((ctx) => new ScanLifecycle(
    ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.Commands), ctx.container.get(TOKENS.Backlog), ctx.container.get(TOKENS.ScanLeases),
    ctx.container.get(TOKENS.Clock), { retryDelaysMs: config.scans.retryDelaysMs },
    ctx.container.isBound(TOKENS.ArtifactNormaliser) ? ctx.container.get<ArtifactNormaliser>(TOKENS.ArtifactNormaliser) : null, ctx.container.get(TOKENS.Logger),
  ));
  c.bind(TOKENS.ScanWorker).toDynamicValue((ctx) => new ScanWorker(
    ctx.container.get(TOKENS.ScanLifecycle), ctx.container.isBound(TOKENS.ScanExecutor) ? ctx.container.get<ScanExecutor>(TOKENS.ScanExecutor) : null,
    ctx.container.get(TOKENS.Clock), ctx.container.get(TOKENS.Logger), {
      enabled: config.scans.embeddedWorker, maxConcurrent: config.scans.maxConcurrent, intervalMs: config.scans.workerIntervalMs,
      labels: config.scans.workerLabels, workerId: `embedded:${instance}`,
      // Without ENCRYPTION_KEY nothing stored can be opened: scans needing a credential wait, spending no attempt (S1.3.1-20).
      holdsCredentials: config.encryptionKey !== null,
      credentials: new CloneCredentials(ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.EventStore), ctx.container.get<SecretBox>(TOKENS.SecretBox)),
    },
  ));
  c.bind(TOKENS.ScanScheduler).toDynamicValue((ctx) => new ScanScheduler(
    ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.Scans), ctx.container.get(TOKENS.ScanLifecycle), ctx.container.get(TOKENS.Settings),
    ctx.container.get(TOKENS.Clock), new BackgroundLease(ctx.container.get(TOKENS.Database), 'scan-scheduler', instance), ctx.container.get(TOKENS.Logger),
    { intervalMs: config.scans.schedulerIntervalMs },
  ));
  c.bind(TOKENS.Feeds).toDynamicValue((ctx) => new FeedSync(
    ctx.container.get(TOKENS.Database), ctx.container.get(TOKENS.Commands), ctx.container.get(TOKENS.IdGenerator), ctx.container.get(TOKENS.Clock), config.feeds, ctx.container.get(TOKENS.Logger),
  ));
  return c;
}

export function servicesOf(c: Container): Services {
  return {
    config: c.get(TOKENS.Config), log: c.get(TOKENS.Logger), clock: c.get(TOKENS.Clock), db: c.get(TOKENS.Database),
    store: c.get(TOKENS.EventStore), commands: c.get(TOKENS.Commands), projections: c.get(TOKENS.Projections),
    identity: c.get(TOKENS.Identity), teams: c.get(TOKENS.Teams), settings: c.get(TOKENS.Settings), targets: c.get(TOKENS.Targets),
    backlog: c.get(TOKENS.Backlog), issues: c.get(TOKENS.Issues), sources: c.get(TOKENS.Sources), importAccess: c.get(TOKENS.ImportAccess), sarifImports: c.get(TOKENS.SarifImports),
    coverageImports: c.get(TOKENS.CoverageImports), testReportImports: c.get(TOKENS.TestReportImports), buildSbomImports: c.get(TOKENS.BuildSbomImports),
    triage: c.get(TOKENS.Triage), exceptions: c.get(TOKENS.Exceptions), reviewScheduler: c.get(TOKENS.ReviewScheduler),
    gate: c.get(TOKENS.Gate),
    feeds: c.get(TOKENS.Feeds),
    scorecards: c.get(TOKENS.Scorecards),
    scans: c.get(TOKENS.Scans), scanLifecycle: c.get(TOKENS.ScanLifecycle), scanWorker: c.get(TOKENS.ScanWorker), scanScheduler: c.get(TOKENS.ScanScheduler),
    credentials: c.get(TOKENS.Credentials),
  };
}

/** Migrations, projections caught up, the bootstrap account: what start does before listening. */
export async function prepare(services: Services): Promise<void> {
  const { db, projections, config, identity, log } = services;
  await runMigrations(db.knex, db.engine);
  await projections.ensureCheckpoints();
  await projections.catchUp();
  if (config.bootstrap) {
    const created = await identity.bootstrap(config.bootstrap.username, config.bootstrap.password);
    if (created) log.info(`Created the first account "${config.bootstrap.username}" (administrator) from VIGIL_BOOTSTRAP_USERNAME.`);
  }
}
