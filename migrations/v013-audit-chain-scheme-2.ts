import type { Migration } from './index';

/**
 * The audit chain's scheme 2 (ADR 0010: SHA-256 of each event's stored data, entries hashed as a
 * fixed-order JSON array) replaces canonical JSON. The chain is a projection of the event log, so
 * the upgrade empties it and moves its checkpoint to the start: the projection runner rebuilds it
 * from the events when Vigil starts, as `npm run projections:rebuild` would.
 */
export const v013AuditChainScheme2: Migration = {
  name: 'v013-audit-chain-scheme-2',
  async up(knex) {
    await knex('audit_log').del();
    await knex('projection_checkpoints').where({ name: 'audit' }).update({ commit_id: '0', position: 0, handled_position: 0, updated_at: new Date().toISOString() });
  },
};
