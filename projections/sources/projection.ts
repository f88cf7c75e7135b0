import { RecordedEvent } from '../../domain/shared/event-envelope';
import { Projection } from '../engine/projection';
import { RowWriter } from '../engine/row-writer';

/** sarif_sources (every declared source, of every kind) and the import records. */
type Handler = (w: RowWriter, e: RecordedEvent<any>) => Promise<unknown> | void;

const definition = (e: RecordedEvent<any>) => ({
  id: e.data.id, slug: e.data.slug, name: e.data.name, api_key_id: e.data.apiKeyId, project_id: e.data.projectId, repository_id: e.data.repositoryId,
  kinds: JSON.stringify(e.data.kinds), tools: JSON.stringify(e.data.tools), state: 'enabled', updated_at: e.metadata.at,
});

const handlers: Record<string, Handler> = {
  SourceDeclared: (w, e) => w.insert('sarif_sources', { ...definition(e), created_at: e.metadata.at }),
  SourceRedeclared: (w, e) => w.update('sarif_sources', { id: e.data.id }, definition(e)),
  SourceDisabled: (w, e) => w.update('sarif_sources', { id: e.data.id }, { state: 'disabled', updated_at: e.metadata.at }),
  SourceEnabled: (w, e) => w.update('sarif_sources', { id: e.data.id }, { state: 'enabled', updated_at: e.metadata.at }),
  SourceRemoved: (w, e) => w.update('sarif_sources', { id: e.data.id }, { state: 'removed', updated_at: e.metadata.at }),
  SarifImportAccepted: (w, e) => w.insert('sarif_imports', {
    id: e.data.id, repository_id: e.data.repositoryId, source_slug: e.data.sourceSlug, account_id: e.data.accountId, api_key_id: e.data.apiKeyId,
    results_count: e.data.resultsCount, created_count: e.data.createdCount, resolved_count: e.data.resolvedCount, reopened_count: e.data.reopenedCount,
    tools: JSON.stringify(e.data.tools), sha256: e.data.sha256, created_at: e.metadata.at,
  }),
};

export const sourcesProjection: Projection = {
  name: 'sources',
  handles: new Set(Object.keys(handlers)),
  tables: ['sarif_sources', 'sarif_imports'],
  async apply(w, events) {
    for (const e of events) await handlers[e.type](w, e);
  },
};
