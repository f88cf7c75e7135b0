import { RecordedEvent } from '../../domain/shared/event-envelope';
import type { CredentialRemovedData, CredentialReplacedData, CredentialSavedData } from '../../domain/credentials/credential';
import { Projection } from '../engine/projection';
import { RowWriter } from '../engine/row-writer';

/**
 * `credentials`: what an administrator may see of a stored clone credential. The sealed secret is
 * deliberately not copied here (it stays in the event log, the only place it is opened from).
 * Which repositories use a credential is `repositories.credential_id` (projections/targets.ts).
 */
type Handler = (w: RowWriter, e: RecordedEvent<any>) => Promise<unknown> | void;

function facts(d: CredentialSavedData | CredentialReplacedData) {
  return {
    name: d.name, host: d.https?.host ?? null, username: d.https?.username ?? null,
    public_key_type: d.ssh?.publicKey.type ?? null, public_key_fingerprint: d.ssh?.publicKey.fingerprint ?? null,
    known_hosts: d.ssh?.knownHosts ?? null, known_hosts_hosts: d.ssh ? JSON.stringify(d.ssh.hosts) : null,
  };
}

const handlers: Record<string, Handler> = {
  CredentialSaved: (w, e: RecordedEvent<CredentialSavedData>) => w.insert('credentials', {
    id: e.data.id, kind: e.data.kind, ...facts(e.data), created_at: e.metadata.at, created_by: e.metadata.actor, updated_at: e.metadata.at, updated_by: e.metadata.actor,
  }),
  CredentialReplaced: (w, e: RecordedEvent<CredentialReplacedData>) => w.update('credentials', { id: e.data.id }, { ...facts(e.data), updated_at: e.metadata.at, updated_by: e.metadata.actor }),
  CredentialRemoved: (w, e: RecordedEvent<CredentialRemovedData>) => w.delete('credentials', { id: e.data.id }),
};

export const credentialsProjection: Projection = {
  name: 'credentials',
  handles: new Set(Object.keys(handlers)),
  tables: ['credentials'],
  async apply(w, events) {
    for (const e of events) await handlers[e.type](w, e);
  },
};
