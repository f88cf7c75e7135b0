import { Config } from '../../infrastructure/config/config';
import { runMigrations } from '../../migrations';
import { Services } from '../http/services';
import { composeAgents } from './agents';
import { composeBacklog } from './backlog';
import { composeCore, Overrides } from './core';
import { composeIdentity } from './identity';
import { composeEnrichment, composeGate, composeScorecards } from './insight';
import { composeScans } from './scans';
import { composeAudit, composeSiem } from './siem';
import { composeTargets } from './targets';
import { composeExports } from './exports';
import { ScanQueueQueries } from '../../projections/scans/queue-queries';
import { DataKeyCustody } from '../../application/credentials/data-key-custody';
import { VaultTransit } from '../../infrastructure/crypto/vault-transit';
import { keyId } from '../../infrastructure/crypto/secret-box';
import { randomBytes } from 'node:crypto';

export type { Overrides } from './core';

/**
 * The one composition root (server, CLIs, specs and benchmarks all start here): the adapters the
 * configuration names, then each context wired to them by its own module, in the order they
 * depend on one another. Plain factories, checked by the compiler (ADR 0014).
 */
export function compose(config: Config, overrides: Overrides = {}): Services {
  const core = composeCore(config, overrides);
  const identity = composeIdentity(core);
  const targets = composeTargets(core, identity);
  const backlog = composeBacklog(core, identity, targets);
  const scans = composeScans(core, identity, targets, backlog);
  const scanQueue = new ScanQueueQueries(core.db);
  const siem = composeSiem(core, identity, targets.secretBox);
  core.metrics.bindReadModels({ projections: () => core.projections.status(), scanCounts: () => scanQueue.countsByStatus(), outboxDepth: () => siem.siemOutbox.depth() });
  return {
    metrics: core.metrics,
    config, log: core.log, clock: core.clock, db: core.db, store: core.store, commands: core.commands, projections: core.projections,
    ...identity, targets: targets.targets, credentials: targets.credentials, sources: targets.sources, ...targets.queries, ...backlog, ...scans,
    ...composeGate(core), ...composeScorecards(core, identity), ...composeEnrichment(core),
    ...composeAgents(core, targets, scans),
    // External key custody (issue #14): the data keys are unwrapped by prepare(), before Vigil listens.
    dataKeys: config.kms ? new DataKeyCustody({
      custody: new VaultTransit(config.kms), store: core.store, commands: core.commands, clock: core.clock, ring: core.secretBox,
      localKeys: [...(config.encryptionKey ? [config.encryptionKey] : []), ...config.previousEncryptionKeys], newDataKey: () => randomBytes(32), keyIdOf: keyId,
    }) : null,
    ...siem, ...composeAudit(core),
    ...composeExports(core, identity, targets, backlog),
  };
}

/** Migrations, projections caught up, the bootstrap account: what start does before listening. */
export async function prepare(services: Services): Promise<void> {
  const { db, projections, config, identity, log } = services;
  await runMigrations(db.knex, db.engine);
  await projections.ensureCheckpoints();
  await projections.catchUp();
  if (services.dataKeys) {
    const unlocked = await services.dataKeys.unlock();
    log.info(`${unlocked.created ? 'Created and wrapped' : 'Unwrapped'} data key ${unlocked.kid} with the transit engine (VIGIL_ENCRYPTION_KMS_*).`);
  }
  if (config.bootstrap) {
    const created = await identity.bootstrap(config.bootstrap.username, config.bootstrap.password);
    if (created) log.info(`Created the first account "${config.bootstrap.username}" (administrator) from VIGIL_BOOTSTRAP_USERNAME.`);
  }
}
