import { compose, prepare } from '../composition/root';
import { loadConfig } from '../../infrastructure/config/config';
import { SettingError } from '../../infrastructure/config/units';
import { createApp } from '../http/app';
import { allRoutes } from '../http/routes';
import { HttpDrain } from '../http/ops/drain';
import { createHttpServer } from '../http/ops/http-server';

/** `npm start`: settings, migrations, projections caught up, bootstrap account, then HTTP on VIGIL_PORT. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof SettingError) {
      process.stderr.write(`Vigil cannot start: ${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const services = compose(config);
  const { log } = services;
  log.info(`Vigil ${config.version} starting`, { database: config.database.engine, eventStore: config.eventStoreUrl ? 'eventstoredb' : 'sql' });
  await prepare(services);
  services.projections.start();
  services.reviewScheduler.start(config.scans.maintenanceIntervalMs); // VIGIL_MAINTENANCE_INTERVAL: review dates
  services.deadlineWatch.start(config.scans.maintenanceIntervalMs); // and remediation deadlines passing (VGL-SEC-030)
  services.scanScheduler.start(); // VIGIL_SCHEDULER_INTERVAL: lease lapses, then due targets
  services.scanWorker.start(); // VIGIL_EMBEDDED_WORKER; stays off (logged) without an executor
  services.feeds.start(config.feeds.intervalMs); // KEV and EPSS, VIGIL_FEED_INTERVAL (0: off)
  services.siemDeliverer.start(); // the SIEM outbox, VIGIL_SIEM_INTERVAL (one instance at a time)
  services.audit.start(config.siem.auditVerifyIntervalMs); // VIGIL_AUDIT_VERIFY_INTERVAL: a broken chain audited once, VGL-SEC-018
  services.auditMirror?.start(); // VIGIL_AUDIT_MIRROR: JSON lines; SIGHUP reopens the file after rotation
  process.on('SIGHUP', () => services.auditMirror?.askReopen());
  const drain = new HttpDrain();
  const { app } = createApp(config, services, allRoutes(services), { first: [drain.middleware()] });
  const server = createHttpServer(app, config.ops);
  server.listen(config.port, config.host, () => log.info(`Vigil listening on http://${config.host}:${config.port}/api/v1`));
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // Requests in flight finish first (they may wait for the read models, so the projections run
    // on until then); then the loops stop and the connections to the databases close.
    log.info(`${signal}: stopping; draining requests in flight (at most ${config.ops.shutdownTimeoutMs} ms, VIGIL_SHUTDOWN_TIMEOUT)`);
    const inTime = await drain.drain(server, config.ops.shutdownTimeoutMs);
    if (!inTime) log.warn('Requests still running at VIGIL_SHUTDOWN_TIMEOUT were cut');
    await services.scanWorker.stop();
    await services.scanScheduler.stop();
    await services.reviewScheduler.stop();
    await services.deadlineWatch.stop();
    await services.feeds.stop();
    await services.siemDeliverer.stop();
    await services.auditMirror?.stop();
    services.audit.stop();
    await services.projections.stop();
    await services.store.close();
    await services.db.close();
    log.info('Stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error) => {
  process.stderr.write(`Vigil failed to start: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
