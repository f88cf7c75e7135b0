import type { Migration } from './index';

/** Read models of identity and access, the audit chain, settings; sessions (operational, not projected). */
export const v002Identity: Migration = {
  name: 'v002-identity',
  async up(knex) {
    await knex.schema.createTable('accounts', (t) => {
      t.integer('id').primary();
      t.string('username', 100).notNullable();
      t.string('username_key', 100).notNullable().unique();
      t.string('display_name', 200).notNullable();
      t.text('roles').notNullable();
      t.boolean('active').notNullable();
      t.string('password_hash', 255).nullable();
      t.string('created_at', 30).notNullable();
      t.string('updated_at', 30).notNullable();
    });
    await knex.schema.createTable('api_keys', (t) => {
      t.integer('id').primary();
      t.integer('account_id').notNullable().index();
      t.string('name', 200).notNullable();
      t.text('scopes').notNullable();
      t.string('key_hash', 64).notNullable().unique();
      t.string('key_prefix', 16).notNullable();
      t.string('restriction_kind', 20).nullable();
      t.integer('restriction_id').nullable();
      t.string('expires_at', 30).nullable();
      t.string('revoked_at', 30).nullable();
      t.string('revoked_reason', 200).nullable();
      t.string('created_at', 30).notNullable();
      t.index(['restriction_kind', 'restriction_id']);
    });
    // Sessions are operational state, not facts: sign-in and sign-out are events, the idle
    // clock is not (ADR 0004). Only the token's SHA-256 is stored.
    await knex.schema.createTable('sessions', (t) => {
      t.string('token_hash', 64).primary();
      t.integer('account_id').notNullable().index();
      t.string('created_at', 30).notNullable();
      t.string('last_seen_at', 30).notNullable();
      t.string('expires_at', 30).notNullable();
      t.string('ended_at', 30).nullable();
    });
    await knex.schema.createTable('teams', (t) => {
      t.integer('id').primary();
      t.string('name', 200).notNullable();
      t.string('created_at', 30).notNullable();
    });
    await knex.schema.createTable('team_members', (t) => {
      t.integer('team_id').notNullable();
      t.integer('account_id').notNullable().index();
      t.primary(['team_id', 'account_id']);
    });
    await knex.schema.createTable('team_grants', (t) => {
      t.integer('team_id').notNullable();
      t.string('kind', 20).notNullable();
      t.integer('target_id').notNullable();
      t.primary(['team_id', 'kind', 'target_id']);
    });
    await knex.schema.createTable('settings', (t) => {
      t.string('name', 100).primary();
      t.text('value').notNullable();
      t.string('updated_at', 30).notNullable();
      t.integer('updated_by').nullable();
    });
    await knex.schema.createTable('audit_log', (t) => {
      t.bigInteger('seq').primary();
      t.string('event_id', 64).notNullable();
      t.bigInteger('position').notNullable();
      t.string('stream_id', 255).notNullable();
      t.string('type', 128).notNullable();
      t.integer('actor').nullable();
      t.string('address', 64).nullable();
      t.string('at', 30).notNullable();
      t.string('data_hash', 64).notNullable();
      t.string('prev_hash', 64).notNullable();
      t.string('hash', 64).notNullable();
    });
  },
};
