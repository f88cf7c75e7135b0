import { RecordedEvent } from '../../domain/shared/event-envelope';
import type { GateVerdictGivenData, StoredViolations } from '../../domain/gate/verdict-event';
import { Projection } from '../engine/projection';

/**
 * `gate_verdicts`, the verdict register (spec 1 §2.8): one row per GateVerdictGiven, every column
 * from the event (its time is data.at), so a rebuild gives the same rows. `violations` holds the
 * kept violations with their total and counts per rule (JSON), `policy` the policy as applied.
 */
export const gateProjection: Projection = {
  name: 'gate',
  handles: new Set(['GateVerdictGiven']),
  tables: ['gate_verdicts'],
  async apply(w, events) {
    for (const e of events as RecordedEvent<GateVerdictGivenData>[]) {
      const d = e.data;
      const violations: StoredViolations = { count: d.violationCount, counts: d.counts, items: d.violations };
      w.insert('gate_verdicts', {
        id: d.id, target_kind: d.targetKind, target_id: d.targetId, passed: d.passed, violations: JSON.stringify(violations),
        policy: JSON.stringify(d.policy), account_id: d.accountId, api_key_id: d.keyId, at: d.at,
      });
    }
  },
};
