import type { Migration } from './index';

/**
 * The components of each accepted build SBOM (spec 1 §4.3 "Build SBOM rules"), one row per
 * component in document order, written by projections/imports.ts from the import's events.
 *
 * - branch: the branch the pipeline stated (null: the SBOM applies to scans of every branch);
 *   copied from the import so that "the build SBOM of this branch" is one indexed read.
 * - source: build, scanner or both (S1.4.3-58). A build SBOM writes 'build'. When a scanner's
 *   SBOM lists the same purl (scans issue), its projection sets 'both' and scanner_scan_id on the
 *   rows of the newest build SBOM that applies to the scanned branch; the scanner-only components
 *   stay with the scan's own inventory as 'scanner'.
 * - purl_key: SHA-256 of the purl, so that matching by purl is an indexed equality on every
 *   engine (a purl has no length bound; MySQL cannot index long text).
 */
export const v005BuildSbomComponents: Migration = {
  name: 'v005-build-sbom-components',
  async up(knex) {
    await knex.schema.createTable('build_sbom_components', (t) => {
      t.integer('import_id').notNullable();
      t.integer('ordinal').notNullable();
      t.integer('repository_id').notNullable();
      t.string('branch', 255).nullable();
      t.text('name').notNullable();
      t.text('version').nullable();
      t.text('purl').nullable();
      t.string('purl_key', 64).nullable();
      t.string('type', 40).notNullable();
      t.text('bom_ref').nullable();
      t.string('source', 10).notNullable();
      t.integer('scanner_scan_id').nullable();
      t.primary(['import_id', 'ordinal']);
      t.index(['repository_id', 'purl_key']);
    });
    // The newest build SBOM of a repository and branch: one index walk.
    await knex.schema.alterTable('build_sbom_imports', (t) => {
      t.index(['repository_id', 'branch', 'id']);
    });
  },
};
