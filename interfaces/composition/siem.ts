import { SiemDeliverer } from '../../application/siem/siem-deliverer';
import { StreamSiemSecrets } from '../../application/siem/siem-secrets';
import { SiemService } from '../../application/siem/siem-service';
import { SecretBox } from '../../application/ports/secret-box';
import { SqlInstanceLease } from '../../infrastructure/scans/sql-instance-lease';
import { siemChecks } from '../../infrastructure/siem/checks';
import { NodeSiemTransport } from '../../infrastructure/siem/transports';
import { SqlOutbox } from '../../projections/siem/outbox';
import { Core } from './core';
import { IdentityContext } from './identity';

/** The SIEM export (issue #13): its configuration, its connection test, and the outbox deliverer (one instance at a time). */
export function composeSiem(core: Core, identity: IdentityContext, secretBox: SecretBox) {
  const settings = core.config.siem;
  const outbox = new SqlOutbox(core.db);
  const transport = new NodeSiemTransport({ hostname: settings.hostname, timeoutMs: settings.timeoutMs });
  const siemDeliverer = new SiemDeliverer(
    outbox, transport, new StreamSiemSecrets(core.store, secretBox), identity.settings, core.clock,
    new SqlInstanceLease(core.db, 'siem-deliverer', core.instance), core.log,
    { version: core.config.version, retryDelaysMs: settings.retryDelaysMs, intervalMs: settings.intervalMs, batchSize: settings.batchSize },
  );
  return {
    siem: new SiemService(core.commands, secretBox, outbox, transport, siemDeliverer, identity.settings, siemChecks, outbox, core.ids),
    siemDeliverer,
    siemOutbox: outbox,
  };
}
