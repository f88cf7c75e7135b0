import type { Migration } from './index';

/**
 * Evidence bundles for auditors (issue #11): one zip per generation, kept until
 * evidence_retention_days passes, then its bytes are dropped and its digest kept. Not a read model:
 * the bytes are not derived from events (the event EvidenceBundleGenerated records the fact and the
 * digest), so a projection rebuild leaves this table alone, as it does the sessions table (ADR 0004).
 */
export const v020EvidenceBundles: Migration = {
  name: 'v020-evidence-bundles',
  async up(knex, engine) {
    await knex.schema.createTable('evidence_bundles', (t) => {
      t.integer('id').primary();
      t.integer('project_id').notNullable();
      t.integer('account_id').notNullable();
      t.string('created_at', 30).notNullable();
      t.string('expires_at', 30).notNullable();
      t.string('sha256', 64).notNullable();
      t.integer('size').notNullable();
      t.text('manifest', 'longtext').notNullable();
      // A zip of up to some hundreds of MB: LONGBLOB on MariaDB (BLOB stops at 64 KB), bytea elsewhere.
      if (engine === 'mysql') t.specificType('content', 'LONGBLOB').nullable();
      else t.binary('content').nullable();
      t.string('purged_at', 30).nullable();
      t.index(['project_id', 'id']);
      t.index(['expires_at']);
    });
  },
};
