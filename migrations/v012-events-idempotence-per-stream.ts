import type { Migration } from './index';

/**
 * Idempotent re-appends are recognised per stream (ADR 0010), as EventStoreDB does: the global
 * unique index on event ids goes. It was a quarter of the cost of every row written to `events`,
 * and nothing reads events by id any more (the audit log verifies by position).
 */
export const v012EventsIdempotencePerStream: Migration = {
  name: 'v012-events-idempotence-per-stream',
  async up(knex, engine) {
    if (engine === 'mysql') await knex.raw('ALTER TABLE events DROP INDEX events_event_id');
    else await knex.raw('ALTER TABLE events DROP CONSTRAINT events_event_id');
  },
};
