import type { Migration } from './index';

/**
 * Two operational tables of the agent protocol, never projected (like scan_leases, ADR 0006/0017):
 * - agent_contacts: the last contact of each agent row (hello, poll, lease renewal), written at most
 *   every 15 seconds (S1.2.7-09); an agent not heard from for two minutes reads offline.
 * - scan_executor_locks: one row per executor with a limit; a claim locks it (SELECT ... FOR UPDATE)
 *   while it counts the executor's claimed, unreported, unexpired scans in scan_leases and inserts
 *   the new lease, so two instances never exceed the limit (S1.4.7-15).
 */
export const v024AgentOperations: Migration = {
  name: 'v024-agent-operations',
  async up(knex) {
    await knex.schema.createTable('agent_contacts', (t) => {
      t.integer('agent_id').primary();
      t.string('last_contact_at', 30).notNullable();
      t.string('address', 64).nullable();
    });
    await knex.schema.createTable('scan_executor_locks', (t) => {
      t.string('worker', 255).primary();
    });
    await knex.schema.alterTable('scan_leases', (t) => {
      t.index(['worker', 'lease_expires_at']);
    });
  },
};
