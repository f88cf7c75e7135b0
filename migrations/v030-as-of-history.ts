import type { Migration } from './index';

/**
 * What exports as of an instant need beyond the streams they fold (issue #11, ADR 0016):
 * - `target_placements`: every (target, project) a target was ever placed in, never deleted (not even
 *   with the target), so that a project's or solution's export as of a past instant finds the targets
 *   that were in it then (each is then folded from its own stream). Read model of
 *   projections/targets/placements-projection.ts: a rebuild yields the same rows.
 * - `epss_score_history`: the EPSS scores of the CVEs the backlog names, kept from every generation
 *   the synchronisation replaces (infrastructure/feeds/epss-table.ts writes it, like epss_scores,
 *   ADR 0007): the log names the generation in use at an instant, this table still holds its scores.
 */
export const v030AsOfHistory: Migration = {
  name: 'v030-as-of-history',
  async up(knex) {
    await knex.schema.createTable('target_placements', (t) => {
      t.string('target_kind', 16).notNullable();
      t.integer('target_id').notNullable();
      t.integer('project_id').notNullable();
      t.string('last_placed_at', 30).notNullable();
      t.primary(['target_kind', 'target_id', 'project_id']);
      t.index(['project_id']);
    });
    await knex.schema.createTable('epss_score_history', (t) => {
      t.integer('generation').notNullable();
      t.string('cve', 32).notNullable();
      t.double('score').notNullable();
      t.double('percentile').notNullable();
      t.primary(['generation', 'cve']);
    });
  },
};
