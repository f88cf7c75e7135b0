import { ScanLifecycle } from '../../application/scans/scan-lifecycle';
import { ScanScheduler } from '../../application/scans/scan-scheduler';
import { ScanService } from '../../application/scans/scan-service';
import { ScanQueueSignal } from '../../application/scans/queue-signal';
import { ScanWorker } from '../../application/scans/scan-worker';
import { SqlInstanceLease } from '../../infrastructure/scans/sql-instance-lease';
import { SqlScanLeases } from '../../infrastructure/scans/sql-scan-leases';
import { createDockerScanExecutor } from '../../infrastructure/scanning/executor';
import { ScannerOutputNormaliser } from '../../infrastructure/scanning/normalise';
import { ScanLifecycleQueries } from '../../projections/scans/lifecycle-queries';
import { ScanQueries } from '../../projections/scans/queries';
import { SchedulingQueries } from '../../projections/scans/scheduling-queries';
import { ScanTargetLookup } from '../../projections/targets/scan-target-lookup';
import { BacklogContext } from './backlog';
import { Core } from './core';
import { IdentityContext } from './identity';
import { TargetsContext } from './targets';

/**
 * The scan lifecycle. The executor (git clone and the five scanners in Docker) and the normaliser
 * of their outputs come from infrastructure/scanning; an override of null binds none, and the
 * built-in worker then stays off with a log line. The lease tables are stores of infrastructure/scans;
 * the scans read model and what the scans need of the targets are queries of projections/.
 */
export function composeScans(core: Core, identity: IdentityContext, targets: TargetsContext, backlog: BacklogContext) {
  const { config, db, commands, clock, log, overrides } = core;
  const executor = overrides.scanExecutor === undefined ? createDockerScanExecutor(config.scanners) : overrides.scanExecutor;
  const normaliser = overrides.normaliser === undefined ? new ScannerOutputNormaliser() : overrides.normaliser;
  const targetLookup = new ScanTargetLookup(db);
  const scanQueue = new ScanQueueSignal();
  const scans = new ScanService(core.visibility, commands, core.ids, targetLookup, scanQueue);
  const lifecycleQueries = new ScanLifecycleQueries(db, targetLookup);
  const leases = new SqlScanLeases(db, (trx, executor, now) => lifecycleQueries.candidates(trx, executor, now));
  const scanLifecycle = new ScanLifecycle(commands, backlog.backlog, leases, lifecycleQueries, targetLookup, clock,
    { retryDelaysMs: config.scans.retryDelaysMs }, normaliser ?? null, log, scanQueue);
  const scanWorker = new ScanWorker(scanLifecycle, executor ?? null, clock, log, {
    enabled: config.scans.embeddedWorker, maxConcurrent: config.scans.maxConcurrent, intervalMs: config.scans.workerIntervalMs,
    labels: config.scans.workerLabels, workerId: `embedded:${core.instance}`,
    // Without ENCRYPTION_KEY nothing stored can be opened: scans needing a credential wait, spending no attempt (S1.3.1-20).
    holdsCredentials: config.encryptionKey !== null || config.kms !== null,
    credentials: targets.cloneCredentials,
  });
  const scanScheduler = new ScanScheduler(new SchedulingQueries(db, targetLookup), scans, scanLifecycle, identity.settings, clock,
    new SqlInstanceLease(db, 'scan-scheduler', core.instance), log, { intervalMs: config.scans.schedulerIntervalMs });
  return { scans, scanQueue, scanQueries: new ScanQueries(db, core.visibility, targetLookup), scanLifecycle, scanWorker, scanScheduler };
}
