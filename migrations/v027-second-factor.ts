import type { Migration } from './index';

/**
 * The local second factor (TOTP; issue #14): each account's factor as the identity projection
 * folds it (no secret, no code hash: those stay in the event log, sealed or hashed), and two
 * operational tables no event rebuilds (ADR 0004): sign-in challenges waiting for a code, and the
 * last TOTP time step each account used (a code is taken once).
 */
export const v027SecondFactor: Migration = {
  name: 'v027-second-factor',
  async up(knex) {
    await knex.schema.createTable('second_factors', (t) => {
      t.integer('account_id').primary();
      // pending | active
      t.string('status', 10).notNullable();
      t.integer('backup_codes_left').notNullable();
      t.string('updated_at', 30).notNullable();
    });
    await knex.schema.createTable('second_factor_challenges', (t) => {
      t.string('challenge_hash', 64).primary();
      t.integer('account_id').notNullable().index();
      t.integer('failures').notNullable();
      t.string('expires_at', 30).notNullable().index();
    });
    await knex.schema.createTable('second_factor_used_steps', (t) => {
      t.integer('account_id').primary();
      t.bigInteger('step').notNullable();
    });
  },
};
