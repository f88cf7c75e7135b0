import { SiemDeliverer } from '../../application/siem/siem-deliverer';
import { StreamSiemSecrets } from '../../application/siem/siem-secrets';
import { SiemService } from '../../application/siem/siem-service';
import { SecretBox } from '../../application/ports/secret-box';
import { SqlInstanceLease } from '../../infrastructure/scans/sql-instance-lease';
import { siemChecks } from '../../infrastructure/siem/checks';
import { NodeSiemTransport } from '../../infrastructure/siem/transports';
import { SqlOutbox } from '../../projections/siem/outbox';
import { siemProjection } from '../../projections/siem/projection';
import { AuditMirror } from '../../application/audit/audit-mirror';
import { AuditService } from '../../application/audit/audit-service';
import { NodeJsonLinesFile } from '../../infrastructure/audit/json-lines-file';
import { AuditQueries } from '../../projections/audit/queries';
import { SqlMirrorPositions } from '../../projections/audit/mirror-positions';
import { Core } from './core';
import { IdentityContext } from './identity';

/** The SIEM export (issue #13): its configuration, its connection test, and the outbox deliverer (one instance at a time). */
export function composeSiem(core: Core, identity: IdentityContext, secretBox: SecretBox) {
  const settings = core.config.siem;
  const outbox = new SqlOutbox(core.db);
  const transport = new NodeSiemTransport({ hostname: settings.hostname, timeoutMs: settings.timeoutMs });
  // Foreground work: commands in flight (the command handler counts them), or a step of the read
  // models committed within the last second.
  const activity = core.commands.activity;
  core.projections.onApplied(() => activity.touch());
  const siemDeliverer = new SiemDeliverer(
    outbox, transport, new StreamSiemSecrets(core.store, secretBox), identity.settings, core.clock,
    new SqlInstanceLease(core.db, 'siem-deliverer', core.instance), core.log,
    { version: core.config.version, retryDelaysMs: settings.retryDelaysMs, intervalMs: settings.intervalMs, batchSize: settings.batchSize,
      batchPauseMs: settings.batchPauseMs, busy: () => activity.busy() },
  );
  // Rows queued by this process's outbox projection leave now, not at the next interval (other
  // instances' rows wait for it): "after commit, within a minute" holds whatever VIGIL_SIEM_INTERVAL.
  core.projections.onApplied((step) => {
    if (step.projections.has(siemProjection.name) && (step.inserted === null || step.inserted.has('siem_outbox'))) siemDeliverer.wake();
  });
  return {
    siem: new SiemService(core.commands, secretBox, outbox, transport, siemDeliverer, identity.settings, siemChecks, outbox, core.ids),
    siemDeliverer,
    siemOutbox: outbox,
  };
}

/** The audit log for auditors: verification (a failure audited once, VGL-SEC-018) and the JSON-lines mirror (VIGIL_AUDIT_MIRROR). */
export function composeAudit(core: Core) {
  const queries = new AuditQueries(core.db);
  const { auditMirror: path, auditMirrorMaxBytes } = core.config.siem;
  return {
    audit: new AuditService(queries, core.store, core.commands, core.clock, core.log),
    auditMirror: path
      ? new AuditMirror(path, queries as never, new NodeJsonLinesFile(path), new SqlMirrorPositions(core.db), core.log, { intervalMs: 1000, batchSize: 1000, maxBytes: auditMirrorMaxBytes })
      : null,
  };
}
