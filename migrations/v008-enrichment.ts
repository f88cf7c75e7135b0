import type { Migration } from './index';

/**
 * Enrichment feeds (spec 1 §1.4, §8.3; ADR 0007): the KEV catalogue in use, the EPSS scores in
 * use, the state of each feed, and the issues already signalled as newly listed (VGL-SEC-002).
 *
 * `issues.kev` becomes nullable: a KEV feed never synchronised reads unknown (null), never false
 * (S1.1-09). No feed has been synchronised before this migration, so every existing row becomes null.
 */
export const v008Enrichment: Migration = {
  name: 'v008-enrichment',
  async up(knex) {
    await knex.schema.alterTable('issues', (t) => {
      t.boolean('kev').nullable().defaultTo(null).alter();
      // The catalogue and the EPSS scores join issues on their CVE identifier.
      t.index(['identifier'], 'issues_identifier_index');
    });
    await knex('issues').update({ kev: null });

    // Projection-owned (ADR 0007): rebuilt from KevEntriesListed / KevEntriesDelisted events.
    await knex.schema.createTable('kev_catalogue', (t) => {
      t.string('cve', 32).primary();
      t.string('date_added', 10).notNullable();
      t.string('vendor_project', 512).notNullable();
      t.string('product', 512).notNullable();
      t.text('vulnerability_name').notNullable();
      t.string('due_date', 10).notNullable();
      t.string('known_ransomware', 32).nullable();
      t.string('listed_version', 64).notNullable();
    });

    // Written by the feed synchronisation itself, not by a projection (ADR 0007): about 300,000
    // scores a day are too many to pass through the event log. Each accepted file is one
    // generation; EpssScoresSynchronised names the generation in use, older ones are deleted.
    await knex.schema.createTable('epss_scores', (t) => {
      t.integer('generation').notNullable();
      t.string('cve', 32).notNullable();
      t.double('score').notNullable();
      t.double('percentile').notNullable();
      t.primary(['generation', 'cve']);
    });

    // Projection-owned: one row per feed once anything happened to it.
    await knex.schema.createTable('feed_state', (t) => {
      t.string('feed', 10).primary();
      t.string('version', 64).nullable();
      t.string('released_at', 40).nullable();
      t.string('model_version', 64).nullable();
      t.integer('count').nullable();
      t.string('digest', 64).nullable();
      t.string('sha256', 64).nullable();
      t.integer('generation').nullable();
      t.string('synchronised_at', 30).nullable();
      t.integer('stream_revision').notNullable();
      t.string('last_refusal', 1024).nullable();
      t.string('last_refused_at', 30).nullable();
    });

    // Projection-owned: issues signalled once as newly listed by KEV (VGL-SEC-002, S2.6-30).
    await knex.schema.createTable('kev_listed', (t) => {
      t.integer('issue_id').primary();
      t.string('issue_key', 64).notNullable();
      t.string('cve', 32).notNullable();
      t.string('catalogue_version', 64).notNullable();
      t.string('listed_at', 30).notNullable();
    });
  },
};
