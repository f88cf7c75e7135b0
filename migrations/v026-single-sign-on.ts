import type { Migration } from './index';

/**
 * Single sign-on (issue #14): the bindings of identity-provider subjects to accounts (a read model
 * of projections/identity/sso-projection.ts) and two operational tables no event rebuilds, like
 * `sessions` (ADR 0004): sign-ons under way (state, nonce and PKCE verifier between the redirect
 * to the provider and its callback) and ID tokens already exchanged for a session by a CLI.
 */
export const v026SingleSignOn: Migration = {
  name: 'v026-single-sign-on',
  async up(knex) {
    await knex.schema.createTable('sso_subjects', (t) => {
      // SHA-256 of issuer and subject: the stream sso-subject-<key> holds the binding.
      t.string('subject_key', 64).primary();
      t.integer('account_id').notNullable().unique();
      t.string('issuer', 500).notNullable();
      t.string('subject', 255).notNullable();
      t.string('via', 20).notNullable();
      t.string('bound_at', 30).notNullable();
    });
    await knex.schema.createTable('sso_pending_sign_ons', (t) => {
      // SHA-256 of the state sent to the provider; the browser that began holds the cookie whose SHA-256 is browser_hash.
      t.string('state_hash', 64).primary();
      t.string('browser_hash', 64).notNullable();
      t.string('nonce', 128).notNullable();
      t.string('code_verifier', 128).notNullable();
      t.string('redirect_uri', 1000).notNullable();
      t.string('expires_at', 30).notNullable().index();
    });
    await knex.schema.createTable('sso_exchanged_tokens', (t) => {
      t.string('token_hash', 64).primary();
      t.string('expires_at', 30).notNullable().index();
    });
  },
};
