import type { CredentialKind } from '../credentials/credential';
import { refuse } from '../shared/decider';

/**
 * How a repository URL is cloned, for the credential it may name (issue #4): an SSH key only over
 * ssh (ssh://, git+ssh://, ssh+git:// or scp-like user@host:path), an HTTPS token only over https and
 * only to the host (and port) it is bound to. The URL was validated by repository-identity.ts first.
 */
export type CloneTransport = 'https' | 'http' | 'ssh' | 'git' | 'file';

export interface CredentialRef {
  readonly id: number;
  readonly kind: CredentialKind;
}

const TRANSPORT: Record<string, CloneTransport> = { https: 'https', http: 'http', ssh: 'ssh', 'git+ssh': 'ssh', 'ssh+git': 'ssh', git: 'git', file: 'file' };

export function cloneTransport(url: string): CloneTransport {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url.trim())?.[1]?.toLowerCase();
  return scheme === undefined ? 'ssh' : TRANSPORT[scheme] ?? 'file';
}

/** host or host:port as a token is bound (443 omitted), lower case, IPv6 in brackets; '' for scp-like and file URLs. */
export function tokenHostOf(url: string): string {
  if (cloneTransport(url) !== 'https') return '';
  const parsed = new URL(url.trim());
  const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
  return parsed.port && parsed.port !== '443' ? `${host}:${parsed.port}` : host;
}

/** Refuses (400) a credential the URL's transport would never use. */
export function checkCredentialTransport(url: string, credential: CredentialRef | null | undefined): void {
  if (!credential) return;
  const transport = cloneTransport(url);
  if (credential.kind === 'ssh_key' && transport !== 'ssh') {
    throw refuse.invalid(`sshKeyId ${credential.id} is an SSH key, used with ssh URLs only (ssh://host/org/repo or git@host:org/repo); this repository's URL is ${transport}://.`);
  }
  if (credential.kind === 'https_token' && transport !== 'https') {
    throw refuse.invalid(`httpsTokenId ${credential.id} is an HTTPS token, sent over https only; this repository's URL is ${transport === 'ssh' ? 'an ssh URL' : `${transport}://`}.`);
  }
}

export const sameCredential = (a: CredentialRef | null | undefined, b: CredentialRef | null | undefined): boolean =>
  (a ?? null) === (b ?? null) || (!!a && !!b && a.id === b.id && a.kind === b.kind);
