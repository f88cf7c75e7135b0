import { sourceDecider } from '../../domain/sources/source';
import { sourceKeyDecider } from '../../domain/sources/source-key';
import { refuse } from '../../domain/shared/decider';
import { CommandHandler, RequestContext } from '../command-handler';
import { IdGenerator } from '../ports/ids';
import { streams } from '../../domain/shared/streams';
import { EnabledSource, KeyLookup, SourceReads, SourceScopes } from './ports';

export type { EnabledSource, SourceRow } from './ports';

export interface DeclareBody { slug: string; name: string; api_key_id: number; project_id?: number | null; repository_id?: number | null; kinds?: string[]; tools?: string[] }

/**
 * Declared sources (spec 1 §2.5, §4.4): declared by a platform governor's session, one key per
 * source (a reservation stream per key, domain/sources/source-key.ts), a slug declared again with a
 * new key rotates the key. Each command is one unit of work: the source's stream and the key
 * streams are read, decided and committed together, and a lost race reads them all again.
 * Queries: projections/sources/queries.ts.
 */
export class SourceService {
  constructor(
    private readonly reads: SourceReads,
    private readonly keys: KeyLookup,
    private readonly scopes: SourceScopes,
    private readonly commands: CommandHandler,
    private readonly ids: IdGenerator,
  ) {}

  async declare(ctx: RequestContext, body: DeclareBody) {
    const key = await this.keys.keyStatus(body.api_key_id);
    if (!key) throw refuse.invalid(`No integration key ${body.api_key_id}.`);
    if (key.revokedAt) throw refuse.invalid(`Key ${body.api_key_id} is revoked; declare the source with a key in use.`);
    if (body.project_id != null && !(await this.scopes.projectExists(body.project_id))) throw refuse.invalid(`No project ${body.project_id}.`);
    if (body.repository_id != null && !(await this.scopes.repositoryExists(body.repository_id))) throw refuse.invalid(`No repository ${body.repository_id}.`);
    const slug = String(body.slug ?? '').trim().toLowerCase();
    await this.commands.transact(ctx, async (attempt) => {
      const source = await attempt.load(streams.source(slug), sourceDecider);
      const events = sourceDecider.decide({
        type: 'DeclareSource', id: source.state.definition?.id ?? (await this.ids.next('source')), slug, name: body.name, apiKeyId: body.api_key_id,
        projectId: body.project_id ?? null, repositoryId: body.repository_id ?? null, kinds: body.kinds, tools: body.tools,
      }, source.state);
      const holder = await attempt.load(streams.sourceKey(body.api_key_id), sourceKeyDecider);
      if (holder.state.slug && holder.state.slug !== slug) {
        // The key may move only from a source that was removed.
        const other = await attempt.load(streams.source(holder.state.slug), sourceDecider);
        if (other.state.state !== 'none' && other.state.state !== 'removed') throw refuse.conflict(`Key ${body.api_key_id} already names source "${holder.state.slug}"; one key names one source.`);
      }
      attempt.record(streams.sourceKey(body.api_key_id), sourceKeyDecider.decide({ type: 'AssignSourceKey', apiKeyId: body.api_key_id, slug }, holder.state), holder.revision ?? 'no_stream');
      const previousKey = source.state.definition?.apiKeyId;
      if (previousKey !== undefined && previousKey !== body.api_key_id) {
        await attempt.decide(streams.sourceKey(previousKey), sourceKeyDecider, { type: 'ReleaseSourceKey', apiKeyId: previousKey, slug });
      }
      attempt.record(streams.source(slug), events, source.revision ?? 'no_stream');
    });
    return this.reads.get(slug);
  }

  async change(ctx: RequestContext, slug: string, type: 'DisableSource' | 'EnableSource' | 'RemoveSource') {
    await this.commands.transact(ctx, async (attempt) => {
      const { state } = await attempt.decide(streams.source(slug), sourceDecider, { type });
      if (type !== 'RemoveSource') return;
      // A removed source gives its key up, when it still holds it.
      const apiKeyId = state.definition!.apiKeyId;
      const holder = await attempt.load(streams.sourceKey(apiKeyId), sourceKeyDecider);
      if (holder.state.slug === slug.toLowerCase()) {
        attempt.record(streams.sourceKey(apiKeyId), sourceKeyDecider.decide({ type: 'ReleaseSourceKey', apiKeyId, slug }, holder.state), holder.revision ?? 'no_stream');
      }
    });
    return type === 'RemoveSource' ? null : this.reads.get(slug);
  }

  /** The enabled source a key names, if any (imports identify the source by the key). */
  async enabledForKey(apiKeyId: number): Promise<EnabledSource | null> {
    return this.reads.enabledForKey(apiKeyId);
  }
}
