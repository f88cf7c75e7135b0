import type { SourceKind } from '../../domain/sources/source';

/** A row of `sarif_sources` (projections/sources): every declared source, of every kind. */
export interface SourceRow {
  id: number; slug: string; name: string; api_key_id: number; project_id: number | null; repository_id: number | null;
  kinds: string; tools: string; state: 'enabled' | 'disabled' | 'removed'; created_at: string; updated_at: string;
}

/** The source a key names, with its kinds and tools read. */
export type EnabledSource = SourceRow & { kindList: SourceKind[]; toolList: string[] };

/** How GET /sarif-sources shows a source (with the state of its key). */
export interface SourceView {
  id: number; slug: string; name: string; api_key_id: number; api_key_state: 'unknown' | 'revoked' | 'expired' | 'active';
  project_id: number | null; repository_id: number | null; kinds: SourceKind[]; tools: string[]; state: SourceRow['state']; created_at: string; updated_at: string;
}

/** What the source commands read of the sources read model (projections/sources/queries.ts). */
export interface SourceReads {
  /** The source as GET /sarif-sources shows it (the answer of a write); 404 when never declared. */
  get(slug: string): Promise<SourceView>;
  /** The enabled source a key names, if any (imports identify the source by the key). */
  enabledForKey(apiKeyId: number): Promise<EnabledSource | null>;
}

/** An integration key as a source declaration checks it (projections/identity/key-lookup.ts). */
export interface KeyLookup {
  /** null when no such key. */
  keyStatus(apiKeyId: number): Promise<{ revokedAt: string | null; expiresAt: string | null } | null>;
}

/** Whether the scope a source names exists (projections/targets). */
export interface SourceScopes {
  projectExists(id: number): Promise<boolean>;
  repositoryExists(id: number): Promise<boolean>;
}
