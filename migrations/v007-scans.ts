import type { Migration } from './index';

/**
 * The scans read model (projections/scans.ts), and two operational tables that are not projected
 * (ADR 0006): the live claims and leases of scans, and the leases of background loops that must run
 * on one instance at a time (the scheduler).
 */
export const v007Scans: Migration = {
  name: 'v007-scans',
  async up(knex) {
    await knex.schema.createTable('scans', (t) => {
      t.integer('id').primary();
      t.string('target_kind', 20).notNullable();
      t.integer('target_id').notNullable();
      t.string('trigger', 10).notNullable();
      // pending | scanning | completed | failed (spec 1 §2.2); read by the gate and the scorecards.
      t.string('status', 10).notNullable();
      // The reason when failed, null otherwise (S1.2.2-03).
      t.text('error').nullable();
      t.string('error_kind', 10).nullable();
      // The reason of the latest failed attempt, also while a retry waits.
      t.text('last_error').nullable();
      t.integer('attempts').notNullable();
      t.boolean('requires_credential').notNullable();
      t.integer('requested_by').nullable();
      t.string('requested_at', 30).notNullable();
      // Claimable from: the request, or the retry delay after a transient failure.
      t.string('not_before', 30).notNullable();
      t.string('started_at', 30).nullable();
      t.string('finished_at', 30).nullable();
      t.string('worker', 255).nullable();
      t.text('languages').nullable();
      t.string('duration', 40).nullable();
      t.text('steps').nullable();
      t.integer('created_count').nullable();
      t.integer('resolved_count').nullable();
      t.integer('reopened_count').nullable();
      t.string('updated_at', 30).notNullable();
      t.index(['target_kind', 'target_id', 'id']);
      t.index(['status', 'not_before']);
    });
    // One row per claimed attempt: the unique (scan_id, attempt) insert is the atomic claim, the
    // row's lease_expires_at moves with heartbeats. Deleted when the attempt ends.
    await knex.schema.createTable('scan_leases', (t) => {
      t.integer('scan_id').notNullable();
      t.integer('attempt').notNullable();
      t.string('worker', 255).notNullable();
      t.string('claimed_at', 30).notNullable();
      t.string('lease_expires_at', 30).notNullable();
      t.string('renewed_at', 30).notNullable();
      t.primary(['scan_id', 'attempt']);
      t.index(['lease_expires_at']);
    });
    await knex.schema.createTable('background_leases', (t) => {
      t.string('name', 100).primary();
      t.string('holder', 255).notNullable();
      t.string('expires_at', 30).notNullable();
    });
  },
};
