import type { Migration } from './index';

/** Read models of solutions, projects, repositories and container images. */
export const v003Targets: Migration = {
  name: 'v003-targets',
  async up(knex) {
    await knex.schema.createTable('solutions', (t) => {
      t.integer('id').primary();
      t.string('name', 200).notNullable();
      t.string('created_at', 30).notNullable();
    });
    await knex.schema.createTable('projects', (t) => {
      t.integer('id').primary();
      t.string('name', 200).notNullable();
      t.integer('solution_id').nullable().index();
      t.string('created_at', 30).notNullable();
    });
    for (const table of ['repositories', 'containers'] as const) {
      await knex.schema.createTable(table, (t) => {
        t.integer('id').primary();
        if (table === 'repositories') {
          t.string('url', 2048).notNullable();
          t.string('identity', 1024).notNullable();
          t.string('uniqueness_key', 64).notNullable().index();
          t.string('branch', 255).notNullable();
          t.string('sub_path', 1024).notNullable();
          t.text('detected_languages').nullable();
        } else {
          t.string('image', 1024).notNullable();
        }
        t.string('name', 255).notNullable();
        t.integer('project_id').nullable().index();
        t.boolean('scan_manual_only').notNullable();
        t.integer('scan_interval_minutes').nullable();
        t.string('scan_cron', 255).nullable();
        t.string('last_scheduled_scan_at', 30).nullable();
        t.integer('created_by').nullable();
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
      });
    }
  },
};
