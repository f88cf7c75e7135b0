import type { Migration } from './index';

/**
 * Read models of the scorecards projection (projections/scorecards.ts), all derived from events:
 * - scorecard_issues: the per-issue state the figures need (severity, KEV, open, triage status,
 *   first seen) for the issues that can count: never imported or plugin ones. The projection keeps
 *   its own copy rather than reading `issues`, so it never depends on the order in which the runner
 *   applies projections, and a rebuild of this projection alone gives the same rows.
 * - scorecard_targets: one row per target that has had an issue, with its open counts and its
 *   riskPoints, score and grade computed as if the target were scanned; whether it is scanned is
 *   asked of the scan-status port at query time (application/scorecards/scan-status.ts).
 * - scorecard_open_ages: open counted issues (not will_not_fix) per target, severity and first-seen
 *   instant, so that overdueCount is counted at query time without reading the issues.
 * - scorecard_trend_points: a target's figures at the end of each earlier day it changed on (its
 *   scorecard_targets row stands for the last one).
 * - scorecard_badges: public badge tokens, by SHA-256 only.
 * - scorecard_kev, scorecard_kev_feed: the KEV catalogue's CVEs and whether it was ever synchronised,
 *   folded from the feed's events, so that an issue's `kev` is known here without reading `issues`.
 */
export const v006Scorecards: Migration = {
  name: 'v006-scorecards',
  async up(knex) {
    await knex.schema.createTable('scorecard_issues', (t) => {
      t.string('issue_key', 64).primary();
      t.string('target_kind', 20).notNullable();
      t.integer('target_id').notNullable();
      t.string('severity', 10).notNullable();
      t.boolean('kev').notNullable();
      t.boolean('open').notNullable();
      t.string('triage_status', 20).notNullable();
      t.string('first_seen_at', 30).notNullable();
      t.string('identifier', 255).nullable();
      t.index(['target_kind', 'target_id', 'open']);
      t.index(['identifier']);
    });
    await knex.schema.createTable('scorecard_targets', (t) => {
      t.string('target_kind', 20).notNullable();
      t.integer('target_id').notNullable();
      /** Stop-gaps until scans exist (application/scorecards/scan-status.ts): a scan completed or a scanner's finding was recorded; the newest interim outcome failed. */
      t.boolean('scanned').notNullable();
      t.boolean('last_scan_failed').notNullable();
      t.integer('open_critical').notNullable();
      t.integer('open_high').notNullable();
      t.integer('open_medium').notNullable();
      t.integer('open_low').notNullable();
      t.integer('open_kev').notNullable();
      t.integer('license_violations').notNullable();
      t.double('risk_points').notNullable();
      t.integer('score').notNullable();
      t.string('grade', 10).notNullable();
      t.string('updated_at', 30).notNullable();
      t.primary(['target_kind', 'target_id']);
    });
    await knex.schema.createTable('scorecard_open_ages', (t) => {
      t.string('target_kind', 20).notNullable();
      t.integer('target_id').notNullable();
      t.string('severity', 10).notNullable();
      t.string('first_seen_at', 30).notNullable();
      t.integer('issues').notNullable();
      t.primary(['target_kind', 'target_id', 'severity', 'first_seen_at']);
      t.index(['severity', 'first_seen_at']);
    });
    await knex.schema.createTable('scorecard_trend_points', (t) => {
      t.string('target_kind', 20).notNullable();
      t.integer('target_id').notNullable();
      t.string('day', 10).notNullable();
      t.boolean('scanned').notNullable();
      t.double('risk_points').notNullable();
      t.integer('score').notNullable();
      t.integer('open_critical').notNullable();
      t.integer('open_high').notNullable();
      t.integer('open_kev').notNullable();
      t.primary(['target_kind', 'target_id', 'day']);
      t.index(['day']);
    });
    await knex.schema.createTable('scorecard_badges', (t) => {
      t.integer('id').primary();
      t.string('token_hash', 64).notNullable().unique();
      t.string('target_kind', 20).notNullable();
      t.integer('target_id').notNullable();
      t.integer('issued_by').nullable();
      t.string('issued_at', 30).notNullable();
      t.string('revoked_at', 30).nullable();
      t.index(['target_kind', 'target_id']);
    });
    await knex.schema.createTable('scorecard_kev', (t) => {
      t.string('cve', 64).primary();
      t.string('listed_version', 64).notNullable();
    });
    await knex.schema.createTable('scorecard_kev_feed', (t) => {
      t.string('feed', 10).primary();
      t.string('version', 64).notNullable();
      t.string('synchronised_at', 30).notNullable();
    });
  },
};
