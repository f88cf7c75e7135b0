import type { Migration } from './index';

/**
 * projection_checkpoints.handled_position: the position of the newest batch in which the projection
 * applied at least one event (its `position` moves with every batch read, handled or not). It is a
 * version of the projection's tables: the gate caches a target's candidate issues under the
 * version of the projections that write `issues`, and any change to them moves it.
 */
export const v011ProjectionHandledPosition: Migration = {
  name: 'v011-projection-handled-position',
  async up(knex) {
    await knex.schema.alterTable('projection_checkpoints', (t) => { t.bigInteger('handled_position').notNullable().defaultTo(0); });
  },
};
