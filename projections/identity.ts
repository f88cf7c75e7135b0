import { Knex } from 'knex';
import { RecordedEvent } from '../application/ports/event-store';
import { Projection } from './engine/projection';

/** accounts, api_keys, teams, team_members, team_grants, settings: who may see and do what. */
type Handler = (trx: Knex.Transaction, e: RecordedEvent<any>) => Promise<unknown>;

const handlers: Record<string, Handler> = {
  AccountCreated: (trx, e) => trx('accounts').insert({
    id: e.data.id, username: e.data.username, username_key: e.data.username.toLowerCase(), display_name: e.data.displayName,
    roles: JSON.stringify(e.data.roles), active: true, password_hash: e.data.passwordHash, created_at: e.metadata.at, updated_at: e.metadata.at,
  }),
  AccountUpdated: (trx, e) => trx('accounts').where({ id: e.data.id }).update({
    ...(e.data.displayName !== undefined ? { display_name: e.data.displayName } : {}),
    ...(e.data.roles !== undefined ? { roles: JSON.stringify(e.data.roles) } : {}),
    ...(e.data.active !== undefined ? { active: e.data.active } : {}),
    updated_at: e.metadata.at,
  }),
  AccountPasswordChanged: (trx, e) => trx('accounts').where({ id: e.data.id }).update({ password_hash: e.data.passwordHash, updated_at: e.metadata.at }),
  ApiKeyIssued: (trx, e) => trx('api_keys').insert({
    id: e.data.id, account_id: e.data.accountId, name: e.data.name, scopes: JSON.stringify(e.data.scopes), key_hash: e.data.keyHash,
    key_prefix: e.data.keyPrefix, restriction_kind: e.data.restriction?.kind ?? null, restriction_id: e.data.restriction?.id ?? null,
    expires_at: e.data.expiresAt, revoked_at: null, revoked_reason: null, created_at: e.metadata.at,
  }),
  ApiKeyRevoked: (trx, e) => trx('api_keys').where({ id: e.data.id }).whereNull('revoked_at').update({ revoked_at: e.metadata.at, revoked_reason: e.data.reason }),
  TeamCreated: (trx, e) => trx('teams').insert({ id: e.data.id, name: e.data.name, created_at: e.metadata.at }),
  TeamMemberAdded: (trx, e) => trx('team_members').insert({ team_id: e.data.teamId, account_id: e.data.accountId }),
  TeamMemberRemoved: (trx, e) => trx('team_members').where({ team_id: e.data.teamId, account_id: e.data.accountId }).del(),
  TeamGrantAdded: (trx, e) => trx('team_grants').insert({ team_id: e.data.teamId, kind: e.data.kind, target_id: e.data.targetId }),
  TeamGrantRemoved: (trx, e) => trx('team_grants').where({ team_id: e.data.teamId, kind: e.data.kind, target_id: e.data.targetId }).del(),
  SettingChanged: async (trx, e) => {
    await trx('settings').where({ name: e.data.name }).del();
    await trx('settings').insert({ name: e.data.name, value: JSON.stringify(e.data.value), updated_at: e.metadata.at, updated_by: e.metadata.actor });
  },
};

export const identityProjection: Projection = {
  name: 'identity',
  handles: new Set(Object.keys(handlers)),
  tables: ['accounts', 'api_keys', 'teams', 'team_members', 'team_grants', 'settings'],
  async apply(trx, events) {
    for (const e of events) await handlers[e.type](trx, e);
  },
};
