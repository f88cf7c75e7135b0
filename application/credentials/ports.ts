import type { CredentialKind } from '../../domain/credentials/credential';

/** What an administrator sees of a stored credential: never the secret (trap 6). */
export interface CredentialView {
  id: number; kind: CredentialKind; name: string; host: string | null; username: string | null;
  publicKey: { type: string | null; fingerprint: string } | null;
  knownHosts: string | null; pinnedHosts: string[] | null;
  repositoryIds: number[]; createdAt: string; createdBy: number | null; updatedAt: string; updatedBy: number | null;
}

/** What the credential commands read (projections/credentials/queries.ts). */
export interface CredentialReads {
  /** The credential as GET /credentials/{id} shows it (the answer of a write); 404 when unknown or removed. */
  get(id: number): Promise<CredentialView>;
  /** The names of these repositories (a refused removal names the repositories still using it). */
  repositoryNames(ids: number[]): Promise<Array<{ id: number; name: string }>>;
}

/** Which stored credential a repository names, for the scan worker (projections/targets/repository-lookups.ts). */
export interface RepositoryCredentialLookup {
  /** null when it names none; undefined when there is no such repository. */
  credentialIdOf(repositoryId: number): Promise<number | null | undefined>;
}
