import type { AgentEvent } from '../../domain/agents/agent';
import { AGENT_EVENT_TYPES } from '../../domain/agents/agent';
import { RecordedEvent } from '../../domain/shared/event-envelope';
import { Projection } from '../engine/projection';
import { RowWriter } from '../engine/row-writer';

const AGENT_STREAM = /^agent-(\d+)$/;

type Data<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>['data'];
type Handler = (w: RowWriter, e: RecordedEvent<any>) => Promise<unknown> | void;

/** The `agents` read model (spec 1 §2.7): one row per agent stream, from its events only. */
const handlers: Record<AgentEvent['type'], Handler> = {
  AgentRegistered: (w, e: RecordedEvent<Data<'AgentRegistered'>>) => w.insert('agents', {
    id: e.data.id, account_id: e.data.accountId, version: e.data.version, mode: e.data.mode, labels: JSON.stringify(e.data.labels),
    max_concurrent: e.data.maxConcurrent, signing_key: null, signing_key_generated: false, signing_key_pinned_at: null,
    sealing_key: null, sealing_key_created_at: null, registered_at: e.data.registeredAt, updated_at: e.metadata.at,
  }),
  AgentHelloChanged: (w, e: RecordedEvent<Data<'AgentHelloChanged'>>) => w.update('agents', { id: e.data.id }, {
    version: e.data.version, mode: e.data.mode, labels: JSON.stringify(e.data.labels), updated_at: e.metadata.at,
  }),
  AgentLimitSet: (w, e: RecordedEvent<Data<'AgentLimitSet'>>) => w.update('agents', { id: e.data.id }, { max_concurrent: e.data.maxConcurrent, updated_at: e.metadata.at }),
  AgentSigningKeyPinned: (w, e: RecordedEvent<Data<'AgentSigningKeyPinned'>>) => w.update('agents', { id: e.data.id }, {
    signing_key: e.data.publicKey, signing_key_generated: e.data.generated, signing_key_pinned_at: e.data.at, sealing_key: null, sealing_key_created_at: null, updated_at: e.metadata.at,
  }),
  AgentSigningKeyRemoved: (w, e: RecordedEvent<Data<'AgentSigningKeyRemoved'>>) => w.update('agents', { id: e.data.id }, {
    signing_key: null, signing_key_generated: false, signing_key_pinned_at: null, sealing_key: null, sealing_key_created_at: null, updated_at: e.metadata.at,
  }),
  AgentSealingKeyAccepted: (w, e: RecordedEvent<Data<'AgentSealingKeyAccepted'>>) => w.update('agents', { id: e.data.id }, {
    sealing_key: e.data.publicKey, sealing_key_created_at: e.data.createdAt, updated_at: e.metadata.at,
  }),
  AgentSealingKeyWithdrawn: (w, e: RecordedEvent<Data<'AgentSealingKeyWithdrawn'>>) => w.update('agents', { id: e.data.id }, {
    sealing_key: null, sealing_key_created_at: null, updated_at: e.metadata.at,
  }),
};

export const agentsProjection: Projection = {
  name: 'agents',
  handles: new Set(AGENT_EVENT_TYPES),
  tables: ['agents'],
  async apply(w, events) {
    for (const e of events) if (AGENT_STREAM.test(e.stream)) await handlers[e.type as AgentEvent['type']](w, e);
  },
};
