import { RecordedEvent } from '../../domain/shared/event-envelope';
import { Projection } from '../engine/projection';
import { RowWriter } from '../engine/row-writer';

type Handler = (w: RowWriter, e: RecordedEvent<any>) => Promise<unknown> | void;

/** scim_tokens (one row: the current token) and scim_users (accounts the provider provisions) (issue #14). */
const handlers: Record<string, Handler> = {
  ScimTokenIssued: (w, e) => w.upsert('scim_tokens', { id: 1, token_hash: e.data.tokenHash, prefix: e.data.prefix, issued_at: e.metadata.at, issued_by: e.metadata.actor }, ['id']),
  ScimTokenRevoked: (w) => w.delete('scim_tokens', { id: 1 }),
  ScimUserProvisioned: (w, e) => w.upsert('scim_users', { account_id: e.data.accountId, external_id: e.data.externalId, provisioned_at: e.metadata.at }, ['account_id']),
  ScimUserChanged: (w, e) => (e.data.changes.externalId !== undefined ? w.update('scim_users', { account_id: e.data.accountId }, { external_id: e.data.changes.externalId }) : undefined),
};

export const scimProjection: Projection = {
  name: 'identity-scim',
  handles: new Set(Object.keys(handlers)),
  tables: ['scim_tokens', 'scim_users'],
  async apply(w, events) {
    for (const e of events) await handlers[e.type](w, e);
  },
};
