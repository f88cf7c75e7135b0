import type { Migration } from './index';

/**
 * SCIM 2.0 provisioning (issue #14): the installation's one SCIM token (only its SHA-256) and the
 * accounts the identity provider provisions, with their externalId. Read models of
 * projections/identity/scim-projection.ts; the account itself stays in `accounts`.
 */
export const v028Scim: Migration = {
  name: 'v028-scim',
  async up(knex) {
    await knex.schema.createTable('scim_tokens', (t) => {
      t.integer('id').primary();
      t.string('token_hash', 64).notNullable();
      t.string('prefix', 16).notNullable();
      t.string('issued_at', 30).notNullable();
      t.integer('issued_by').nullable();
    });
    await knex.schema.createTable('scim_users', (t) => {
      t.integer('account_id').primary();
      t.string('external_id', 255).nullable().index();
      t.string('provisioned_at', 30).notNullable();
    });
  },
};
