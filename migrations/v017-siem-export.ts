import type { Migration } from './index';

/**
 * The SIEM export (issue #13, ADR 0015). `siem_config` and `siem_outbox` belong to the siem
 * projection (projections/siem/projection.ts): the configuration as it stands (without the sealed
 * Authorization header, which stays in the event log, trap 6) and one row per security event the
 * log signals while the export is on, keyed by the event's id (the externalId), written with the
 * projection's checkpoint in one transaction. `siem_deliveries` is the deliverer's own state per
 * outbox row (attempts, next attempt, outcome): not derived from events, so a projection rebuild
 * leaves it alone and re-queues nothing that already left.
 */
export const v017SiemExport: Migration = {
  name: 'v017-siem-export',
  async up(knex) {
    await knex.schema.createTable('siem_config', (t) => {
      t.integer('id').primary();
      t.boolean('enabled').notNullable();
      // webhook | syslog_udp | syslog_tcp | syslog_tls
      t.string('protocol', 20).notNullable();
      t.string('endpoint', 2048).notNullable();
      t.boolean('authorization_set').notNullable();
      t.text('tls_ca_pem').nullable();
      t.string('minimum_severity', 10).notNullable();
      t.integer('generation').notNullable();
      t.string('updated_at', 30).notNullable();
      t.integer('updated_by').nullable();
    });
    await knex.schema.createTable('siem_outbox', (t) => {
      t.string('event_id', 36).primary();
      t.bigInteger('position').notNullable().index();
      t.string('commit_id', 40).notNullable();
      t.integer('generation').notNullable();
      t.string('signature', 16).notNullable();
      t.integer('severity').notNullable();
      t.string('outcome', 10).notNullable();
      t.string('act', 64).notNullable();
      t.integer('actor').nullable();
      t.string('address', 64).nullable();
      t.string('user_agent', 512).nullable();
      t.string('target', 600).nullable();
      t.string('identifier', 64).nullable();
      t.string('component', 600).nullable();
      t.text('msg').nullable();
      t.string('at', 30).notNullable();
    });
    await knex.schema.createTable('siem_deliveries', (t) => {
      t.string('event_id', 36).primary();
      // retrying | delivered | failed | abandoned | below_minimum
      t.string('status', 16).notNullable();
      t.integer('attempts').notNullable();
      t.string('next_attempt_at', 30).nullable().index();
      t.string('last_error', 1000).nullable();
      t.string('destination', 2100).nullable();
      t.string('updated_at', 30).notNullable();
    });
  },
};
