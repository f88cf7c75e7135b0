import type { Migration } from './index';

/**
 * Where a target's scans may run (spec 1 §2.1 "required agent", S1.2.1-20; VIGIL_WORKER_LABELS,
 * S1.8.3-42), kept by the targets projection:
 * - repositories and containers: required_agent_id (null: any executor) and required_labels (a sorted
 *   JSON array, null when none) as the API shows them;
 * - target_requirements: the same, one row per requirement (`agent:<id>`, `label:<name>`), so that a
 *   claim leaves out a target with any requirement the claimer does not carry in one anti-join of
 *   its own statement, on every engine (no JSON functions).
 */
export const v029TargetRequirements: Migration = {
  name: 'v029-target-requirements',
  async up(knex) {
    for (const table of ['repositories', 'containers']) {
      await knex.schema.alterTable(table, (t) => {
        t.integer('required_agent_id').nullable();
        t.text('required_labels').nullable();
      });
    }
    await knex.schema.createTable('target_requirements', (t) => {
      t.string('target_kind', 20).notNullable();
      t.integer('target_id').notNullable();
      // 'agent:' and an id, or 'label:' and a label of at most 64 characters.
      t.string('requirement', 80).notNullable();
      t.primary(['target_kind', 'target_id', 'requirement']);
    });
  },
};
