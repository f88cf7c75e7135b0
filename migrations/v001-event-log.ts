import type { Migration } from './index';

/** The event table, the projection checkpoints and id sequences (ADR 0002, ADR 0003). */
export const v001EventLog: Migration = {
  name: 'v001-event-log',
  async up(knex, engine) {
    if (engine === 'mysql') {
      await knex.raw(`CREATE TABLE events (
        position BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
        event_id VARCHAR(64) NOT NULL,
        stream_id VARCHAR(255) NOT NULL,
        revision INT NOT NULL,
        type VARCHAR(128) NOT NULL,
        data LONGTEXT NOT NULL,
        metadata TEXT NOT NULL,
        UNIQUE KEY events_stream_revision (stream_id, revision),
        UNIQUE KEY events_event_id (event_id)
      ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
      await knex.schema.createTable('event_append_lock', (t) => { t.integer('id').primary(); });
      await knex('event_append_lock').insert({ id: 1 });
    } else {
      await knex.raw(`CREATE TABLE events (
        position BIGSERIAL PRIMARY KEY,
        commit_id XID8 NOT NULL DEFAULT pg_current_xact_id(),
        event_id UUID NOT NULL,
        stream_id VARCHAR(255) NOT NULL,
        revision INT NOT NULL,
        type VARCHAR(128) NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT NOT NULL,
        CONSTRAINT events_stream_revision UNIQUE (stream_id, revision),
        CONSTRAINT events_event_id UNIQUE (event_id)
      )`);
      await knex.raw('CREATE INDEX events_commit_position ON events (commit_id, position)');
    }
    await knex.schema.createTable('projection_checkpoints', (t) => {
      t.string('name', 100).primary();
      t.string('commit_id', 40).notNullable().defaultTo('0');
      t.bigInteger('position').notNullable().defaultTo(0);
      t.string('updated_at', 30).notNullable();
    });
    await knex.schema.createTable('id_sequences', (t) => {
      t.string('name', 64).primary();
      t.bigInteger('next_value').notNullable();
    });
  },
};
