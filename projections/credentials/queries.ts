import { CredentialReads, CredentialView } from '../../application/credentials/ports';
import type { CredentialKind } from '../../domain/credentials/credential';
import { refuse } from '../../domain/shared/decider';
import { Database } from '../../infrastructure/db/database';
import { RepositoryLookups } from '../targets/repository-lookups';

interface CredentialRow {
  id: number; kind: CredentialKind; name: string; host: string | null; username: string | null;
  public_key_type: string | null; public_key_fingerprint: string | null; known_hosts: string | null; known_hosts_hosts: string | null;
  created_at: string; created_by: number | null; updated_at: string; updated_by: number | null;
}

/**
 * Stored credentials as administrators see them (GET /credentials, /credentials/{id}): the
 * `credentials` table has no secret column; which repositories name each one comes from the targets
 * read model (`repositories.credential_id`, through its RepositoryLookups).
 */
export class CredentialQueries implements CredentialReads {
  constructor(private readonly db: Database, private readonly repositories: RepositoryLookups) {}

  /** Up to `limit` + 1 credentials after the id `after` (GET /credentials pages with the extra one). */
  async page(limit: number, after: number): Promise<CredentialView[]> {
    const rows: CredentialRow[] = await this.db.knex('credentials').where('id', '>', after).orderBy('id').limit(limit + 1);
    const uses = await this.repositories.repositoriesByCredential();
    return rows.map((r) => view(r, uses.get(Number(r.id)) ?? []));
  }

  async get(id: number): Promise<CredentialView> {
    const row: CredentialRow | undefined = await this.db.knex('credentials').where({ id }).first();
    if (!row) throw refuse.notFound(`No stored credential ${id}.`);
    return view(row, (await this.repositories.repositoriesByCredential(id)).get(id) ?? []);
  }

  async repositoryNames(ids: number[]): Promise<Array<{ id: number; name: string }>> {
    return this.repositories.names(ids);
  }
}

function view(r: CredentialRow, repositoryIds: number[]): CredentialView {
  return {
    id: Number(r.id), kind: r.kind, name: r.name, host: r.host, username: r.username,
    publicKey: r.public_key_fingerprint ? { type: r.public_key_type, fingerprint: r.public_key_fingerprint } : null,
    knownHosts: r.known_hosts, pinnedHosts: r.known_hosts_hosts ? JSON.parse(r.known_hosts_hosts) as string[] : null,
    repositoryIds, createdAt: r.created_at, createdBy: r.created_by === null ? null : Number(r.created_by),
    updatedAt: r.updated_at, updatedBy: r.updated_by === null ? null : Number(r.updated_by),
  };
}
