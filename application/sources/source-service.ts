import { SourceKind, sourceDecider, SourceStreamState } from '../../domain/sources/source';
import { refuse } from '../../domain/shared/decider';
import { Database } from '../../infrastructure/db/database';
import { CommandHandler, RequestContext } from '../command-handler';
import { WrongExpectedRevision } from '../ports/event-store';
import { IdGenerator } from '../ports/ids';
import { streams } from '../../domain/shared/streams';

export interface SourceRow {
  id: number; slug: string; name: string; api_key_id: number; project_id: number | null; repository_id: number | null;
  kinds: string; tools: string; state: 'enabled' | 'disabled' | 'removed'; created_at: string; updated_at: string;
}

/**
 * Declared sources (spec 1 §2.5, §4.4): declared by a platform governor's session, one key per
 * source (a reservation stream per key), a slug declared again with a new key rotates the key.
 */
export class SourceService {
  constructor(private readonly db: Database, private readonly commands: CommandHandler, private readonly ids: IdGenerator) {}

  async declare(ctx: RequestContext, body: { slug: string; name: string; api_key_id: number; project_id?: number | null; repository_id?: number | null; kinds?: string[]; tools?: string[] }) {
    const key = await this.db.knex('api_keys').where({ id: body.api_key_id }).first();
    if (!key) throw refuse.invalid(`No integration key ${body.api_key_id}.`);
    if (key.revoked_at) throw refuse.invalid(`Key ${body.api_key_id} is revoked; declare the source with a key in use.`);
    if (body.project_id != null && !(await this.db.knex('projects').where({ id: body.project_id }).first())) throw refuse.invalid(`No project ${body.project_id}.`);
    if (body.repository_id != null && !(await this.db.knex('repositories').where({ id: body.repository_id }).first())) throw refuse.invalid(`No repository ${body.repository_id}.`);
    const slug = String(body.slug ?? '').trim().toLowerCase();
    for (let attempt = 0; ; attempt++) {
      const source = await this.commands.load<never, SourceStreamState>(streams.source(slug), sourceDecider as never);
      const events = sourceDecider.decide({
        type: 'DeclareSource', id: source.state.definition?.id ?? (await this.ids.next('source')), slug, name: body.name, apiKeyId: body.api_key_id,
        projectId: body.project_id ?? null, repositoryId: body.repository_id ?? null, kinds: body.kinds, tools: body.tools,
      }, source.state);
      const holder = await this.keyHolder(body.api_key_id);
      if (holder.slug && holder.slug !== slug) {
        const other = await this.db.knex('sarif_sources').where({ slug: holder.slug }).first();
        if (other && other.state !== 'removed') throw refuse.conflict(`Key ${body.api_key_id} already names source "${holder.slug}"; one key names one source.`);
      }
      const previousKey = source.state.definition?.apiKeyId;
      const appends = [];
      if (holder.slug !== slug) appends.push({ stream: streams.sourceKey(body.api_key_id), events: [{ type: 'SourceKeyAssigned', data: { apiKeyId: body.api_key_id, slug } }], expectedRevision: holder.revision ?? ('no_stream' as const) });
      if (previousKey !== undefined && previousKey !== body.api_key_id) {
        const old = await this.keyHolder(previousKey);
        appends.push({ stream: streams.sourceKey(previousKey), events: [{ type: 'SourceKeyReleased', data: { apiKeyId: previousKey, slug } }], expectedRevision: old.revision ?? ('no_stream' as const) });
      }
      appends.push({ stream: streams.source(slug), events, expectedRevision: source.revision ?? ('no_stream' as const) });
      try {
        await this.commands.appendAll(appends, ctx);
        return this.get(slug);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision) || attempt >= 3) throw error;
      }
    }
  }

  private async keyHolder(apiKeyId: number): Promise<{ slug: string | null; revision: number | null }> {
    const events = await this.commands.load<never, { slug: string | null }>(streams.sourceKey(apiKeyId), {
      initialState: () => ({ slug: null }),
      evolve: (_s: unknown, e: { type: string; data: { slug: string } }) => ({ slug: e.type === 'SourceKeyAssigned' ? e.data.slug : null }),
    } as never);
    return { slug: events.state.slug, revision: events.revision };
  }

  async change(ctx: RequestContext, slug: string, type: 'DisableSource' | 'EnableSource' | 'RemoveSource') {
    await this.commands.execute(streams.source(slug), sourceDecider, { type }, ctx);
    if (type === 'RemoveSource') {
      const row = await this.db.knex('sarif_sources').where({ slug: slug.toLowerCase() }).first();
      const holder = await this.keyHolder(Number(row.api_key_id));
      if (holder.slug === slug.toLowerCase()) {
        await this.commands.appendAll([{ stream: streams.sourceKey(Number(row.api_key_id)), events: [{ type: 'SourceKeyReleased', data: { apiKeyId: Number(row.api_key_id), slug } }], expectedRevision: holder.revision ?? 'no_stream' }], ctx);
      }
      return null;
    }
    return this.get(slug);
  }

  async get(slug: string) {
    const row: SourceRow | undefined = await this.db.knex('sarif_sources').where({ slug: slug.toLowerCase() }).first();
    if (!row) throw refuse.notFound(`No source "${slug}".`);
    return this.view(row);
  }

  async list() {
    const rows: SourceRow[] = await this.db.knex('sarif_sources').orderBy('slug');
    return Promise.all(rows.map((r) => this.view(r)));
  }

  /** The enabled source a key names, if any (imports identify the source by the key). */
  async enabledForKey(apiKeyId: number): Promise<(SourceRow & { kindList: SourceKind[]; toolList: string[] }) | null> {
    const row: SourceRow | undefined = await this.db.knex('sarif_sources').where({ api_key_id: apiKeyId, state: 'enabled' }).first();
    return row ? { ...row, kindList: JSON.parse(row.kinds), toolList: JSON.parse(row.tools) } : null;
  }

  private async view(row: SourceRow) {
    const key = await this.db.knex('api_keys').where({ id: row.api_key_id }).first();
    const keyState = !key ? 'unknown' : key.revoked_at ? 'revoked' : key.expires_at && Date.parse(key.expires_at) <= Date.now() ? 'expired' : 'active';
    return {
      id: Number(row.id), slug: row.slug, name: row.name, api_key_id: Number(row.api_key_id), api_key_state: keyState,
      project_id: row.project_id === null ? null : Number(row.project_id), repository_id: row.repository_id === null ? null : Number(row.repository_id),
      kinds: JSON.parse(row.kinds), tools: JSON.parse(row.tools), state: row.state, created_at: row.created_at, updated_at: row.updated_at,
    };
  }
}
