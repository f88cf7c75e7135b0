import type { Migration } from './index';
import { width } from '../domain/shared/column-widths';

/**
 * The OWASP Top 10 categories of issues (issue #16, ADR 0021): one row per issue and category in
 * normal form (`A03:2021`), written by the backlog projection from IssueDetected's owaspCategories.
 * GET /issues?owasp_category= finds the issues of a category through (category, issue_id).
 * Nothing to fill in: IssueDetected events written before issue #16 carry no categories, so the
 * issues they detected have none (a rebuild yields the same rows).
 */
export const v031OwaspCategories: Migration = {
  name: 'v031-owasp-categories',
  async up(knex) {
    await knex.schema.createTable('issue_owasp_categories', (t) => {
      t.integer('issue_id').notNullable();
      t.string('category', width('issue_owasp_categories.category')).notNullable();
      t.primary(['issue_id', 'category']);
      t.index(['category', 'issue_id']);
    });
  },
};
