import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'winston';
import { CommandHandler, ReadModelBarrier } from '../../application/command-handler';
import { Clock, systemClock } from '../../application/ports/clock';
import { EventStore } from '../../application/ports/event-store';
import { IdGenerator } from '../../application/ports/ids';
import { VisibilityReader } from '../../application/identity/visibility';
import { ArtifactNormaliser, ScanExecutor } from '../../application/ports/scanning';
import { Config } from '../../infrastructure/config/config';
import { Database, openDatabase } from '../../infrastructure/db/database';
import { SqlIdGenerator } from '../../infrastructure/db/sql-id-generator';
import { EsdbEventStore } from '../../infrastructure/eventstore/esdb-event-store';
import { SqlEventStore } from '../../infrastructure/eventstore/sql-event-store';
import { createLogger } from '../../infrastructure/logging/logger';
import { ObservedEventStore } from '../../infrastructure/eventstore/observed-event-store';
import { VigilMetrics } from '../../infrastructure/metrics/vigil-metrics';
import { allProjections } from '../../projections';
import { ProjectionRunner } from '../../projections/engine/projection-runner';
import { SqlVisibility } from '../../projections/identity/visibility';

/** What a test, a benchmark or a CLI may put in place of the adapters the configuration names. */
export interface Overrides {
  clock?: Clock;
  database?: Database;
  logger?: Logger;
  /** The scan executor and normaliser (specs stand in for Docker at the port); null binds none (the worker stays off). */
  scanExecutor?: ScanExecutor | null;
  normaliser?: ArtifactNormaliser | null;
}

/** The adapters every context is wired to: configuration, log, clock, database, event log, ids, projections, the command path. */
export interface Core {
  config: Config;
  log: Logger;
  clock: Clock;
  db: Database;
  store: EventStore;
  ids: IdGenerator;
  projections: ProjectionRunner;
  commands: CommandHandler;
  /** What a caller sees (teams' grants), for every context that answers about targets. */
  visibility: VisibilityReader;
  /** This process among the instances sharing the database (leases, worker ids). */
  instance: string;
  overrides: Overrides;
  /** GET /metrics: this instance's counters and the read models' gauges (infrastructure/metrics). */
  metrics: VigilMetrics;
}

/**
 * The adapters chosen from the configuration: PGlite, PostgreSQL or MySQL for read models; the SQL
 * table or EventStoreDB for events; the projection runner over them; the command path waiting on it.
 */
export function composeCore(config: Config, overrides: Overrides = {}): Core {
  const log = overrides.logger ?? createLogger(config.logLevel, config.logFormat);
  const db = overrides.database ?? openDatabase(config.database);
  const logStore: EventStore = config.eventStoreUrl ? new EsdbEventStore(config.eventStoreUrl) : new SqlEventStore(db);
  const metrics = new VigilMetrics();
  // Commands append through the measured store; the projections read the log itself.
  const store: EventStore = new ObservedEventStore(logStore, metrics);
  const ids = new SqlIdGenerator(db);
  const projections = new ProjectionRunner(db, logStore as never, allProjections, {
    sourceIsDatabase: !config.eventStoreUrl,
    onError: (e, name) => log.error(`Projection ${name} failed; it retries from its checkpoint`, { error: e.stack }),
    onFailure: (f) => log.error(
      `Projection ${f.projection} cannot take the event at position ${f.position} (${f.type}, stream ${f.stream}): ${f.error}. Recorded in projection_failures and skipped; see GET /health.`,
      { projection: f.projection, position: f.position, commit: f.commit, eventId: f.eventId, type: f.type, stream: f.stream },
    ),
  });
  const barrier: ReadModelBarrier = {
    async waitFor(result, types) {
      const reached = await projections.waitFor(result.cursor, types, config.readYourWritesTimeoutMs);
      if (!reached) log.warn('Read models did not reach a command\'s events in time; the answer may precede them', { cursor: result.cursor });
    },
  };
  return {
    config, log, clock: overrides.clock ?? systemClock, db, store, ids, projections, commands: new CommandHandler(store, ids, barrier), visibility: new SqlVisibility(db),
    instance: `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`, overrides, metrics,
  };
}
