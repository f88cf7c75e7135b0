import type { Migration } from './index';

/** The issue backlog, declared sources, import records and the verdict register. */
export const v004Backlog: Migration = {
  name: 'v004-backlog',
  async up(knex) {
    await knex.schema.createTable('issues', (t) => {
      t.integer('id').primary();
      t.string('issue_key', 64).notNullable().unique();
      t.string('target_kind', 20).notNullable();
      t.integer('target_id').notNullable();
      t.string('type', 20).notNullable();
      t.string('tool_key', 255).notNullable();
      t.string('tool_name', 255).notNullable();
      t.string('tool_version', 255).nullable();
      t.string('source_slug', 100).nullable();
      t.string('origin', 20).notNullable();
      t.string('rule_id', 512).notNullable();
      t.string('path', 1024).notNullable();
      t.integer('line').nullable();
      t.string('severity', 10).notNullable();
      t.string('identifier', 255).nullable();
      t.string('package_name', 512).nullable();
      t.string('package_version', 255).nullable();
      t.boolean('fixable').nullable();
      t.text('title').notNullable();
      t.boolean('kev').notNullable().defaultTo(false);
      t.double('epss').nullable();
      t.string('status', 10).notNullable();
      t.string('triage_status', 20).notNullable();
      t.string('triage_requested_status', 20).nullable();
      t.string('justification', 64).nullable();
      t.string('review_date', 30).nullable();
      t.string('first_seen_at', 30).notNullable();
      t.string('last_seen_at', 30).notNullable();
      t.string('resolved_at', 30).nullable();
      t.integer('revision').notNullable();
      t.index(['target_kind', 'target_id', 'status']);
      t.index(['target_kind', 'target_id', 'tool_key']);
      t.index(['triage_status']);
    });
    await knex.schema.createTable('sarif_sources', (t) => {
      t.integer('id').primary();
      t.string('slug', 100).notNullable().unique();
      t.string('name', 200).notNullable();
      t.integer('api_key_id').notNullable().index();
      t.integer('project_id').nullable();
      t.integer('repository_id').nullable();
      t.text('kinds').notNullable();
      t.text('tools').notNullable();
      t.string('state', 10).notNullable();
      t.string('created_at', 30).notNullable();
      t.string('updated_at', 30).notNullable();
    });
    await knex.schema.createTable('sarif_imports', (t) => {
      t.integer('id').primary();
      t.integer('repository_id').notNullable();
      t.string('source_slug', 100).notNullable();
      t.integer('account_id').notNullable();
      t.integer('api_key_id').notNullable();
      t.integer('results_count').notNullable();
      t.integer('created_count').notNullable();
      t.integer('resolved_count').notNullable();
      t.integer('reopened_count').notNullable();
      t.text('tools').notNullable();
      t.string('sha256', 64).notNullable();
      t.string('created_at', 30).notNullable();
      t.index(['repository_id', 'id']);
    });
    await knex.schema.createTable('coverage_imports', (t) => {
      t.integer('id').primary();
      t.integer('repository_id').notNullable();
      t.string('source_slug', 100).notNullable();
      t.integer('account_id').notNullable();
      t.string('format', 20).notNullable();
      t.integer('lines_covered').notNullable();
      t.integer('lines_total').notNullable();
      t.integer('branches_covered').nullable();
      t.integer('branches_total').nullable();
      t.string('tool_version', 255).nullable();
      t.string('commit', 64).nullable();
      t.string('branch', 255).nullable();
      t.string('packages_state', 20).nullable();
      t.text('packages', 'longtext').nullable();
      t.string('sha256', 64).notNullable();
      t.string('created_at', 30).notNullable();
      t.index(['repository_id', 'id']);
    });
    await knex.schema.createTable('test_report_imports', (t) => {
      t.integer('id').primary();
      t.integer('repository_id').notNullable();
      t.string('source_slug', 100).notNullable();
      t.integer('account_id').notNullable();
      t.integer('documents').notNullable();
      t.integer('suites').notNullable();
      t.integer('tests').notNullable();
      t.integer('failures').notNullable();
      t.integer('errors').notNullable();
      t.integer('skipped').notNullable();
      t.text('suite_totals', 'longtext').notNullable();
      t.string('commit', 64).nullable();
      t.string('branch', 255).nullable();
      t.string('sha256', 64).notNullable();
      t.string('created_at', 30).notNullable();
      t.index(['repository_id', 'id']);
    });
    await knex.schema.createTable('build_sbom_imports', (t) => {
      t.integer('id').primary();
      t.integer('repository_id').notNullable();
      t.string('source_slug', 100).notNullable();
      t.integer('account_id').notNullable();
      t.string('spec_version', 10).notNullable();
      t.integer('components').notNullable();
      t.string('commit', 64).nullable();
      t.string('branch', 255).nullable();
      t.string('sha256', 64).notNullable();
      t.string('created_at', 30).notNullable();
      t.index(['repository_id', 'id']);
    });
    await knex.schema.createTable('gate_verdicts', (t) => {
      t.integer('id').primary();
      t.string('target_kind', 20).notNullable();
      t.integer('target_id').notNullable();
      t.boolean('passed').notNullable();
      t.text('violations', 'longtext').notNullable();
      t.text('policy').notNullable();
      t.integer('account_id').notNullable();
      t.integer('api_key_id').nullable();
      t.string('at', 30).notNullable();
      t.index(['target_kind', 'target_id', 'id']);
      t.index(['at']);
    });
  },
};
