import type { Migration } from './index';

/**
 * Where the audit mirror (VIGIL_AUDIT_MIRROR, application/audit/audit-mirror.ts) has written up to,
 * per file path: the seq of the last entry appended and fsync'd there. Not a projection's table:
 * a rebuild of the chain gives the same seqs, so the mirror neither repeats nor skips after one.
 */
export const v018AuditMirror: Migration = {
  name: 'v018-audit-mirror',
  async up(knex) {
    await knex.schema.createTable('audit_mirror_positions', (t) => {
      // 700 characters: a key MariaDB indexes in utf8mb4 (3,072 bytes).
      t.string('path', 700).primary();
      t.bigInteger('seq').notNullable();
      t.string('updated_at', 30).notNullable();
    });
  },
};
