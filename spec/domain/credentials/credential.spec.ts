import { expect } from 'chai';
import {
  CredentialCommand, credentialDecider, CredentialEvent, CredentialStatus, credentialTransitions, SealedSecret, STORED_CREDENTIAL_SIEM,
} from '../../../domain/credentials';
import { deciderSpec } from '../../support/decider-spec';

const spec = deciderSpec(credentialDecider);
const now = new Date('2026-02-01T10:00:00.000Z');
const at = now.toISOString();
const sealed: SealedSecret = { alg: 'A256GCM', kid: '0011223344556677', iv: 'aXYxMjM0NTY3ODkw', ct: 'Y2lwaGVy', tag: 'dGFndGFndGFndGFndGFn' };
const resealed: SealedSecret = { ...sealed, ct: 'YW5vdGhlcg==' };
const ssh = { publicKey: { type: 'ssh-ed25519', fingerprint: 'SHA256:abc' }, knownHosts: 'git.example ssh-ed25519 AAAA\n', hosts: ['git.example'] };
const https = { host: 'git.example', username: 'oauth2' };

const saveToken: CredentialCommand = { type: 'SaveCredential', id: 3, kind: 'https_token', name: ' CI token ', https, sealed, actor: 1, now };
const saveKey: CredentialCommand = { type: 'SaveCredential', id: 4, kind: 'ssh_key', name: 'deploy key', ssh, sealed, actor: 1, now };
const tokenSaved: CredentialEvent = {
  type: 'CredentialSaved', data: { id: 3, kind: 'https_token', name: 'CI token', ssh: null, https, sealed, savedAt: at, savedBy: 1, siem: STORED_CREDENTIAL_SIEM },
};
const keySaved: CredentialEvent = {
  type: 'CredentialSaved', data: { id: 4, kind: 'ssh_key', name: 'deploy key', ssh, https: null, sealed, savedAt: at, savedBy: 1, siem: STORED_CREDENTIAL_SIEM },
};
const attach = (repositoryId: number, o: Partial<{ expectedKind: 'ssh_key' | 'https_token'; urlHost: string; id: number }> = {}): CredentialCommand => ({
  type: 'AttachCredential', id: o.id ?? 3, repositoryId, expectedKind: o.expectedKind ?? 'https_token', urlHost: o.urlHost ?? 'git.example', actor: 1, now,
});
const attached = (repositoryId: number, id = 3): CredentialEvent => ({ type: 'CredentialAttached', data: { id, repositoryId, at } });
const detached = (repositoryId: number, id = 3): CredentialEvent => ({ type: 'CredentialDetached', data: { id, repositoryId, at } });
const removed: CredentialEvent = { type: 'CredentialRemoved', data: { id: 3, kind: 'https_token', removedAt: at, removedBy: 1, siem: STORED_CREDENTIAL_SIEM } };

describe('stored credential decider (domain/credentials)', () => {
  describe('save', () => {
    it('[S2.6-47] saves a token with only sealed material, signalling VGL-SEC-019 "stored credential"', () => {
      spec.given([]).when(saveToken).then([tokenSaved]);
      expect(STORED_CREDENTIAL_SIEM).to.include({ signature: 'VGL-SEC-019', subject: 'stored credential', severity: 6 });
    });

    it('saves an SSH key with its public fingerprint and pinned host keys', () => {
      spec.given([]).when(saveKey).then([keySaved]);
    });

    it('refuses a blank or overlong name (400) and a second save of one id (409)', () => {
      spec.given([]).when({ ...saveToken, name: '  ' } as CredentialCommand).thenRefused('invalid');
      spec.given([]).when({ ...saveToken, name: 'x'.repeat(201) } as CredentialCommand).thenRefused('invalid');
      spec.given([tokenSaved]).when(saveToken).thenRefused('conflict');
    });
  });

  describe('replace', () => {
    it('[S2.6-47] replaces a token\'s secret and user name, keeping its host and name', () => {
      spec.given([tokenSaved]).when({ type: 'ReplaceCredential', username: 'ci-bot', sealed: resealed, actor: 2, now }).then([{
        type: 'CredentialReplaced',
        data: { id: 3, kind: 'https_token', name: 'CI token', ssh: null, https: { host: 'git.example', username: 'ci-bot' }, sealed: resealed, replacedAt: at, replacedBy: 2, siem: STORED_CREDENTIAL_SIEM },
      }]);
    });

    it('replaces an SSH key, keeping the pinned host keys unless new ones are given', () => {
      const publicKey = { type: 'ssh-ed25519', fingerprint: 'SHA256:new' };
      spec.given([keySaved]).when({ type: 'ReplaceCredential', publicKey, name: 'rotated', sealed: resealed, actor: 2, now }).then([{
        type: 'CredentialReplaced',
        data: { id: 4, kind: 'ssh_key', name: 'rotated', ssh: { ...ssh, publicKey }, https: null, sealed: resealed, replacedAt: at, replacedBy: 2, siem: STORED_CREDENTIAL_SIEM },
      }]);
    });

    it('refuses fields of the other kind (400), and an unknown or removed credential (404)', () => {
      spec.given([tokenSaved]).when({ type: 'ReplaceCredential', publicKey: ssh.publicKey, sealed, actor: 1, now }).thenRefused('invalid');
      spec.given([keySaved]).when({ type: 'ReplaceCredential', publicKey: ssh.publicKey, username: 'x', sealed, actor: 1, now }).thenRefused('invalid');
      spec.given([]).when({ type: 'ReplaceCredential', sealed, actor: 1, now }).thenRefused('not_found');
      spec.given([tokenSaved, removed]).when({ type: 'ReplaceCredential', sealed, actor: 1, now }).thenRefused('not_found');
    });
  });

  describe('attach, detach, remove', () => {
    it('attaches a repository once (again: nothing) and detaches it', () => {
      spec.given([tokenSaved]).when(attach(9)).then([attached(9)]);
      spec.given([tokenSaved, attached(9)]).when(attach(9)).then([]);
      spec.given([tokenSaved, attached(9)]).when({ type: 'DetachCredential', repositoryId: 9, actor: 1, now }).then([detached(9)]);
      spec.given([tokenSaved]).when({ type: 'DetachCredential', repositoryId: 9, actor: 1, now }).then([]);
    });

    it('refuses an unknown or removed credential as a bad field (400), and the wrong kind for the field (400)', () => {
      expect(spec.given([]).when(attach(9, { id: 77 })).thenRefused('invalid').message).to.match(/No stored credential 77/);
      spec.given([tokenSaved, removed]).when(attach(9)).thenRefused('invalid');
      expect(spec.given([tokenSaved]).when(attach(9, { expectedKind: 'ssh_key' })).thenRefused('invalid').message).to.match(/HTTPS token, not an SSH key: name it as httpsTokenId/);
      expect(spec.given([keySaved]).when(attach(9, { id: 4, expectedKind: 'https_token' })).thenRefused('invalid').message).to.match(/name it as sshKeyId/);
    });

    it('a token is bound to its host: another host (or port) is refused (400)', () => {
      expect(spec.given([tokenSaved]).when(attach(9, { urlHost: 'evil.example' })).thenRefused('invalid').message).to.match(/bound to git\.example.*evil\.example/);
      spec.given([tokenSaved]).when(attach(9, { urlHost: 'git.example:8443' })).thenRefused('invalid');
    });

    it('an SSH key takes any host (its pinned host keys decide at clone time)', () => {
      spec.given([keySaved]).when(attach(9, { id: 4, expectedKind: 'ssh_key', urlHost: '' })).then([attached(9, 4)]);
    });

    it('[S2.6-47] removes an unused credential; refuses (409, naming them) while repositories use it', () => {
      spec.given([tokenSaved, attached(9), detached(9)]).when({ type: 'RemoveCredential', actor: 1, now }).then([removed]);
      const refused = spec.given([tokenSaved, attached(9), attached(12)]).when({ type: 'RemoveCredential', actor: 1, now }).thenRefused('conflict');
      expect(refused.extensions).to.deep.equal({ repositoryIds: [9, 12] });
      spec.given([]).when({ type: 'RemoveCredential', actor: 1, now }).thenRefused('not_found');
    });
  });

  it('the transition table lists, per state, the commands decide accepts', () => {
    const history: Record<CredentialStatus, CredentialEvent[]> = { none: [], active: [tokenSaved], removed: [tokenSaved, removed] };
    const commands: CredentialCommand[] = [saveToken, { type: 'ReplaceCredential', sealed, actor: 1, now }, { type: 'RemoveCredential', actor: 1, now }, attach(9), { type: 'DetachCredential', repositoryId: 9, actor: 1, now }];
    for (const [status, events] of Object.entries(history) as Array<[CredentialStatus, CredentialEvent[]]>) {
      for (const command of commands) {
        const run = () => credentialDecider.decide(command, events.reduce(credentialDecider.evolve, credentialDecider.initialState()));
        if (credentialTransitions[status].includes(command.type)) expect(run, `${status} accepts ${command.type}`).not.to.throw();
        else expect(run, `${status} refuses ${command.type}`).to.throw();
      }
    }
  });
});
