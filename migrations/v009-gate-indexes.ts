import type { Migration } from './index';

/**
 * The gate reads a target's open issues at or above a severity, or KEV-listed. Partial indexes on
 * PostgreSQL hold only open issues; MariaDB has none, so a composite index serves there.
 */
export const v009GateIndexes: Migration = {
  name: 'v009-gate-indexes',
  async up(knex, engine) {
    if (engine === 'mysql') {
      await knex.schema.alterTable('issues', (t) => { t.index(['target_kind', 'target_id', 'status', 'severity'], 'issues_gate_severity'); });
      return;
    }
    await knex.raw("CREATE INDEX issues_open_severity ON issues (target_kind, target_id, severity) WHERE status = 'open'");
    await knex.raw("CREATE INDEX issues_open_kev ON issues (target_kind, target_id) WHERE status = 'open' AND kev");
  },
};
