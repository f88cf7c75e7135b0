import type { Migration } from './index';

/**
 * Events a projection cannot take (ADR 0011) and the columns too narrow for what they are given.
 *
 * - projection_failures: one row per projection and event it set aside (recorded in the transaction
 *   that moves its checkpoint past the event); a rebuild of the projection empties and refills its rows.
 * - issues.path: 1,024 characters cut real paths (PATH_MAX is 4,096, and nothing bounds a SARIF
 *   location before ingestion); widening a varchar rewrites no row on PostgreSQL nor on MariaDB.
 * - MySQL/MariaDB: the TEXT columns that hold JSON, and credentials.known_hosts (the API takes
 *   65,536 characters), become LONGTEXT. TEXT holds 65,535 bytes: the projection would otherwise cut
 *   the value to fit, and a cut JSON text breaks whatever reads it. PostgreSQL's text has no such bound.
 */
const MYSQL_LONGTEXT: Record<string, Array<[column: string, nullable: boolean]>> = {
  accounts: [['roles', false]],
  api_keys: [['scopes', false]],
  settings: [['value', false]],
  sarif_sources: [['kinds', false], ['tools', false]],
  sarif_imports: [['tools', false]],
  gate_verdicts: [['policy', false]],
  scans: [['steps', true], ['languages', true]],
  repositories: [['detected_languages', true]],
  credentials: [['known_hosts', true], ['known_hosts_hosts', true]],
};

export const v014ProjectionFailures: Migration = {
  name: 'v014-projection-failures',
  async up(knex, engine) {
    await knex.schema.createTable('projection_failures', (t) => {
      t.string('projection', 100).notNullable();
      // The event's cursor and identity, as the log has them.
      t.bigInteger('position').notNullable();
      t.string('commit_id', 40).notNullable();
      t.string('event_id', 64).notNullable();
      t.string('type', 128).notNullable();
      t.string('stream_id', 255).notNullable();
      t.string('error', 1000).notNullable();
      t.string('at', 30).notNullable();
      t.primary(['projection', 'position']);
    });
    if (engine === 'mysql') {
      await knex.raw('ALTER TABLE issues MODIFY path VARCHAR(4096) NOT NULL');
      for (const [table, columns] of Object.entries(MYSQL_LONGTEXT)) {
        await knex.raw(`ALTER TABLE ${table} ${columns.map(([c, nullable]) => `MODIFY ${c} LONGTEXT ${nullable ? 'NULL' : 'NOT NULL'}`).join(', ')}`);
      }
    } else {
      await knex.raw('ALTER TABLE issues ALTER COLUMN path TYPE VARCHAR(4096)');
    }
  },
};
