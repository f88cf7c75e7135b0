import { EnabledSource, KeyLookup, SourceReads, SourceRow, SourceView } from '../../application/sources/ports';
import { refuse } from '../../domain/shared/decider';
import { Database } from '../../infrastructure/db/database';

/**
 * Declared sources (GET /sarif-sources) with the state of their key, read from the identity read
 * model through KeyLookup; and the enabled source a key names (imports).
 */
export class SourceQueries implements SourceReads {
  constructor(private readonly db: Database, private readonly keys: KeyLookup) {}

  async get(slug: string): Promise<SourceView> {
    const row: SourceRow | undefined = await this.db.knex('sarif_sources').where({ slug: slug.toLowerCase() }).first();
    if (!row) throw refuse.notFound(`No source "${slug}".`);
    return this.view(row);
  }

  /** Up to `limit` + 1 sources after the id `after`, by id (GET /sarif-sources pages with the extra one). */
  async page(limit: number, after: number): Promise<SourceView[]> {
    const rows: SourceRow[] = await this.db.knex('sarif_sources').where('id', '>', after).orderBy('id').limit(limit + 1);
    return Promise.all(rows.map((r) => this.view(r)));
  }

  async enabledForKey(apiKeyId: number): Promise<EnabledSource | null> {
    const row: SourceRow | undefined = await this.db.knex('sarif_sources').where({ api_key_id: apiKeyId, state: 'enabled' }).first();
    return row ? { ...row, kindList: JSON.parse(row.kinds), toolList: JSON.parse(row.tools) } : null;
  }

  private async view(row: SourceRow): Promise<SourceView> {
    const key = await this.keys.keyStatus(Number(row.api_key_id));
    const keyState = !key ? 'unknown' : key.revokedAt ? 'revoked' : key.expiresAt && Date.parse(key.expiresAt) <= Date.now() ? 'expired' : 'active';
    return {
      id: Number(row.id), slug: row.slug, name: row.name, api_key_id: Number(row.api_key_id), api_key_state: keyState,
      project_id: row.project_id === null ? null : Number(row.project_id), repository_id: row.repository_id === null ? null : Number(row.repository_id),
      kinds: JSON.parse(row.kinds), tools: JSON.parse(row.tools), state: row.state, created_at: row.created_at, updated_at: row.updated_at,
    };
  }
}
