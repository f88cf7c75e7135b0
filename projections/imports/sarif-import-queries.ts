import { Database } from '../../infrastructure/db/database';

/**
 * GET /repositories/{id}/sarif-imports. The `sarif_imports` rows are written by the sources
 * projection (projections/sources, beside the sources they name); this is their one reader.
 */
export class SarifImportQueries {
  constructor(private readonly db: Database) {}

  /** The latest 50 SARIF imports of a repository, newest first. */
  async history(repositoryId: number) {
    const rows = await this.db.knex('sarif_imports').where({ repository_id: repositoryId }).orderBy('id', 'desc').limit(50);
    return rows.map((r: Record<string, any>) => ({
      id: Number(r.id), source: r.source_slug, accountId: Number(r.account_id), resultsCount: Number(r.results_count), createdCount: Number(r.created_count),
      resolvedCount: Number(r.resolved_count), reopenedCount: Number(r.reopened_count), tools: JSON.parse(r.tools), sha256: r.sha256, createdAt: r.created_at,
    }));
  }
}
