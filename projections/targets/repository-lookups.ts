import { Database } from '../../infrastructure/db/database';

/**
 * What other contexts read of `repositories` (this projection owns the table): which repositories
 * name a stored credential, their names, whether one exists. No visibility: the callers are
 * administrators' commands and the scan worker.
 */
export class RepositoryLookups {
  constructor(private readonly db: Database) {}

  async exists(id: number): Promise<boolean> {
    return Boolean(await this.db.knex('repositories').where({ id }).first());
  }

  /** The stored credential the repository names: null when none, undefined when no such repository. */
  async credentialIdOf(repositoryId: number): Promise<number | null | undefined> {
    const row: { credential_id: number | null } | undefined = await this.db.knex('repositories').where({ id: repositoryId }).select('credential_id').first();
    if (!row) return undefined;
    return row.credential_id === null ? null : Number(row.credential_id);
  }

  /** Credential id → the ids of the repositories naming it, by id; only `credentialId`'s when given. */
  async repositoriesByCredential(credentialId?: number): Promise<Map<number, number[]>> {
    const q = this.db.knex('repositories').whereNotNull('credential_id').select('id', 'credential_id').orderBy('id');
    if (credentialId !== undefined) q.where({ credential_id: credentialId });
    const map = new Map<number, number[]>();
    for (const r of await q as Array<{ id: number; credential_id: number }>) map.set(Number(r.credential_id), [...(map.get(Number(r.credential_id)) ?? []), Number(r.id)]);
    return map;
  }

  async names(ids: number[]): Promise<Array<{ id: number; name: string }>> {
    return this.db.knex('repositories').whereIn('id', ids).select('id', 'name').orderBy('id');
  }
}
