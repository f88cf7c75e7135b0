import { RecordedEvent } from '../../domain/shared/event-envelope';
import { Projection } from '../engine/projection';
import { RowWriter } from '../engine/row-writer';

/** accounts, api_keys, teams, team_members, team_grants, settings: who may see and do what. */
type Handler = (w: RowWriter, e: RecordedEvent<any>) => Promise<unknown> | void;

const handlers: Record<string, Handler> = {
  AccountCreated: (w, e) => w.insert('accounts', {
    id: e.data.id, username: e.data.username, username_key: e.data.username.toLowerCase(), display_name: e.data.displayName,
    roles: JSON.stringify(e.data.roles), active: true, password_hash: e.data.passwordHash, created_at: e.metadata.at, updated_at: e.metadata.at,
  }),
  AccountUpdated: (w, e) => w.update('accounts', { id: e.data.id }, {
    ...(e.data.displayName !== undefined ? { display_name: e.data.displayName } : {}),
    ...(e.data.roles !== undefined ? { roles: JSON.stringify(e.data.roles) } : {}),
    ...(e.data.active !== undefined ? { active: e.data.active } : {}),
    updated_at: e.metadata.at,
  }),
  AccountPasswordChanged: (w, e) => w.update('accounts', { id: e.data.id }, { password_hash: e.data.passwordHash, updated_at: e.metadata.at }),
  ApiKeyIssued: (w, e) => w.insert('api_keys', {
    id: e.data.id, account_id: e.data.accountId, name: e.data.name, scopes: JSON.stringify(e.data.scopes), key_hash: e.data.keyHash,
    key_prefix: e.data.keyPrefix, restriction_kind: e.data.restriction?.kind ?? null, restriction_id: e.data.restriction?.id ?? null,
    expires_at: e.data.expiresAt, revoked_at: null, revoked_reason: null, created_at: e.metadata.at,
  }),
  // The decider revokes a key once; the first revocation is the one that counts.
  ApiKeyRevoked: (w, e) => w.update('api_keys', { id: e.data.id }, { revoked_at: e.metadata.at, revoked_reason: e.data.reason }),
  TeamCreated: (w, e) => w.insert('teams', { id: e.data.id, name: e.data.name, created_at: e.metadata.at }),
  TeamMemberAdded: (w, e) => w.insert('team_members', { team_id: e.data.teamId, account_id: e.data.accountId }, ['team_id', 'account_id']),
  TeamMemberRemoved: (w, e) => w.delete('team_members', { team_id: e.data.teamId, account_id: e.data.accountId }),
  TeamGrantAdded: (w, e) => w.insert('team_grants', { team_id: e.data.teamId, kind: e.data.kind, target_id: e.data.targetId }, ['team_id', 'kind', 'target_id']),
  TeamGrantRemoved: (w, e) => w.delete('team_grants', { team_id: e.data.teamId, kind: e.data.kind, target_id: e.data.targetId }),
  SettingChanged: (w, e) => w.upsert('settings', { name: e.data.name, value: JSON.stringify(e.data.value), updated_at: e.metadata.at, updated_by: e.metadata.actor }, ['name']),
};

export const identityProjection: Projection = {
  name: 'identity',
  handles: new Set(Object.keys(handlers)),
  tables: ['accounts', 'api_keys', 'teams', 'team_members', 'team_grants', 'settings'],
  async apply(w, events) {
    for (const e of events) await handlers[e.type](w, e);
  },
};
