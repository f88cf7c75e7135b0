import type { Migration } from './index';

/**
 * The audit chain's scheme 3 (ADR 0012): each entry covers its event's whole stored envelope
 * (revision, commit and the SHA-256 of the stored metadata join the id, stream, position, type
 * and data hash). The entries get those columns; the chain is a projection of the event log, so
 * the upgrade empties it and moves its checkpoint to the start, as v013 did: the projection
 * runner rebuilds it from the events when Vigil starts, as `npm run projections:rebuild` would.
 */
export const v016AuditChainScheme3: Migration = {
  name: 'v016-audit-chain-scheme-3',
  async up(knex) {
    await knex('audit_log').del();
    await knex.schema.alterTable('audit_log', (t) => {
      t.integer('revision').notNullable();
      // xid8 as decimal text on PostgreSQL (up to 20 digits), '0' on MariaDB/MySQL.
      t.string('commit_id', 40).notNullable();
      t.string('metadata_hash', 64).notNullable();
    });
    await knex('projection_checkpoints').where({ name: 'audit' }).update({ commit_id: '0', position: 0, handled_position: 0, updated_at: new Date().toISOString() });
  },
};
