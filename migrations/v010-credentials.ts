import type { Migration } from './index';

/**
 * Stored clone credentials (projections/credentials.ts) and the credential a repository names.
 * No secret column on purpose: the sealed secret stays in the event log only (trap 6), so neither a
 * read-model dump nor a query can leak it; what is here is what an administrator may see.
 */
export const v010Credentials: Migration = {
  name: 'v010-credentials',
  async up(knex) {
    await knex.schema.createTable('credentials', (t) => {
      t.integer('id').primary();
      // ssh_key | https_token
      t.string('kind', 20).notNullable();
      t.string('name', 200).notNullable();
      // HTTPS tokens: the host (and :port) the token is bound to, and the user name sent with it.
      t.string('host', 300).nullable();
      t.string('username', 255).nullable();
      // SSH keys: the public half's type and SHA256 fingerprint, the pinned known_hosts lines and their host patterns (JSON).
      t.string('public_key_type', 100).nullable();
      t.string('public_key_fingerprint', 100).nullable();
      t.text('known_hosts').nullable();
      t.text('known_hosts_hosts').nullable();
      t.string('created_at', 30).notNullable();
      t.integer('created_by').nullable();
      t.string('updated_at', 30).notNullable();
      t.integer('updated_by').nullable();
    });
    await knex.schema.alterTable('repositories', (t) => {
      t.integer('credential_id').nullable().index();
      t.string('credential_kind', 20).nullable();
    });
  },
};
