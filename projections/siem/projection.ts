import type { SiemConfiguration } from '../../domain/siem/config';
import { signalOf, SIGNALLING_TYPES } from '../../domain/siem/event-signals';
import { RecordedEvent } from '../../domain/shared/event-envelope';
import { Projection } from '../engine/projection';

/**
 * The SIEM outbox is a projection of the event log (ADR 0015): the log is the cause, so a
 * rolled-back change never reaches it (S2.6-04), and its rows commit with the projection's
 * checkpoint, so each event is queued exactly once (S2.6-01). While the export is on, every event
 * that signals (domain/siem/event-signals.ts) becomes one row keyed by its id, the externalId the
 * receiver deduplicates on (S2.6-03). The configuration (`siem_config`) is folded here too, in log
 * order, so whether an event was queued depends only on the log, and a rebuild gives the same rows.
 */
const CONFIG_ID = 1;

interface ExportState { enabled: boolean; generation: number }

export const siemProjection: Projection = {
  name: 'siem',
  handles: new Set([...SIGNALLING_TYPES, 'SiemExportConfigured']),
  tables: ['siem_config', 'siem_outbox'],
  async apply(w, events) {
    const row: { enabled: boolean | number; generation: number } | undefined = await w.trx('siem_config').where({ id: CONFIG_ID }).first('enabled', 'generation');
    const state: ExportState = { enabled: Boolean(row?.enabled), generation: Number(row?.generation ?? 0) };
    const fit = await w.fitter('siem_outbox');
    for (const e of events) {
      if (e.type === 'SiemExportConfigured') configure(w, e as RecordedEvent<SiemConfiguration & { authorizationChanged: boolean }>, state);
      if (!state.enabled) continue;
      const draft = signalOf(e.type, e.data, e.stream);
      if (!draft) continue;
      w.insert('siem_outbox', fit({
        event_id: e.id, position: e.cursor.position, commit_id: e.cursor.commit, generation: state.generation,
        signature: draft.signature, severity: draft.severity, outcome: draft.outcome, act: draft.act,
        actor: e.metadata.actor ?? null, address: (e.metadata.address as string | null) ?? null, user_agent: (e.metadata.userAgent as string | null) ?? null,
        target: draft.target ?? null, identifier: draft.identifier ?? null, component: draft.component ?? null, msg: draft.msg ?? null, at: e.metadata.at,
      }), ['event_id']);
    }
  },
};

function configure(w: Parameters<Projection['apply']>[0], e: RecordedEvent<SiemConfiguration>, state: ExportState): void {
  const c = e.data;
  state.enabled = c.enabled;
  state.generation = c.generation;
  w.upsert('siem_config', {
    id: CONFIG_ID, enabled: c.enabled, protocol: c.protocol, endpoint: c.endpoint, authorization_set: c.authorization !== null, tls_ca_pem: c.tlsCaPem,
    minimum_severity: c.minimumSeverity, generation: c.generation, updated_at: e.metadata.at, updated_by: e.metadata.actor,
  }, ['id']);
}
