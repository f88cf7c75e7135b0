import { CredentialEvent, currentSecret } from '../../domain/credentials/credential';
import { EventStore } from '../ports/event-store';
import { CloneCredential, ScanFailure, ScanTarget } from '../ports/scanning';
import { SecretBox, SecretUnusable } from '../ports/secret-box';
import { streams } from '../../domain/shared/streams';
import { RepositoryCredentialLookup } from './ports';

/**
 * Hands the built-in worker the credential a repository names, unsealed for one run (issue #4). It
 * reads the credential's stream (the only place the sealed secret lives) and opens it with the
 * stream name as associated data. A credential removed meanwhile, or one no configured key opens
 * (ENCRYPTION_KEY changed without the old one in VIGIL_PREVIOUS_ENCRYPTION_KEYS), fails the scan
 * permanently: "credential unusable" (spec 1 §3.1, S1.3.1-14). Reasons never hold the secret.
 */
export class CloneCredentials {
  constructor(private readonly repositories: RepositoryCredentialLookup, private readonly store: EventStore, private readonly box: SecretBox) {}

  async forTarget(target: ScanTarget): Promise<CloneCredential | undefined> {
    if (target.kind !== 'repository') return undefined;
    const id = await this.repositories.credentialIdOf(target.id);
    if (id == null) return undefined;
    const recorded = await this.store.readStream<CredentialEvent['data']>(streams.credential(id));
    const secret = currentSecret(recorded.map((r) => ({ type: r.type, data: r.data }) as CredentialEvent));
    if (!secret) throw new ScanFailure('permanent', `credential unusable: stored credential ${id} was removed; name another one on repository ${target.id}.`);
    let plaintext: string;
    try {
      plaintext = this.box.open(secret.facts.sealed, streams.credential(id));
    } catch (error) {
      if (!(error instanceof SecretUnusable)) throw error;
      throw new ScanFailure('permanent', `credential unusable: stored credential ${id} ("${secret.name}") cannot be opened: ${error.message}. Put the key that sealed it in VIGIL_PREVIOUS_ENCRYPTION_KEYS, or store the secret again (PUT /credentials/${id}).`);
    }
    if (secret.kind === 'https_token' && secret.facts.https) {
      return { kind: 'https_token', id, host: secret.facts.https.host, username: secret.facts.https.username, token: plaintext };
    }
    if (secret.kind === 'ssh_key' && secret.facts.ssh) return { kind: 'ssh_key', id, privateKey: plaintext, knownHosts: secret.facts.ssh.knownHosts };
    throw new ScanFailure('permanent', `credential unusable: stored credential ${id} is incomplete.`);
  }
}
