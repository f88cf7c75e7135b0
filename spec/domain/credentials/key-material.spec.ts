import { expect } from 'chai';
import { DomainError } from '../../../domain/shared/decider';
import { inspectPrivateKey, normaliseTokenHost, parseKnownHosts, validateToken, validateTokenUser } from '../../../domain/credentials';
import { knownHostsFor, openSshKey, pemRsaKey, pkcs8EcKey } from '../../support/ssh-keys';

const refusal = (fn: () => unknown): string => {
  try { fn(); } catch (e) { expect(e).to.be.instanceOf(DomainError); expect((e as DomainError).kind).to.equal('invalid'); return (e as Error).message; }
  throw new Error('expected a 400 refusal');
};

describe('credential key material (domain/credentials/key-material)', () => {
  describe('private keys', () => {
    it('reads an OpenSSH key, giving the fingerprint ssh-keygen -l prints, and stores it with one final line break', () => {
      const key = openSshKey();
      const inspected = inspectPrivateKey(key.privateKey.trim().replace(/\n/g, '\r\n'));
      expect(inspected.publicKey).to.deep.equal({ type: 'ssh-ed25519', fingerprint: key.fingerprint });
      expect(inspected.text).to.equal(key.privateKey);
    });

    it('reads PEM keys (PKCS#1 RSA, PKCS#8 EC) through node:crypto', () => {
      expect(inspectPrivateKey(pemRsaKey()).publicKey.type).to.equal('ssh-rsa');
      expect(inspectPrivateKey(pkcs8EcKey()).publicKey).to.include({ type: 'ecdsa-sha2-nistp256' }).and.have.property('fingerprint').that.match(/^SHA256:[A-Za-z0-9+/]{43}$/);
    });

    it('refuses a key under a passphrase with a clear 400 (OpenSSH and PEM)', () => {
      expect(refusal(() => inspectPrivateKey(openSshKey({ encrypted: true }).privateKey)), 'OpenSSH').to.match(/protected by a passphrase/);
      expect(refusal(() => inspectPrivateKey(pkcs8EcKey({ passphrase: 'pass phrase' }))), 'PKCS#8').to.match(/protected by a passphrase/);
    });

    it('refuses what is not one private key: empty, a public key, garbage, a truncated or damaged block', () => {
      const key = openSshKey();
      refusal(() => inspectPrivateKey(''));
      expect(refusal(() => inspectPrivateKey(key.publicLine))).to.match(/not a private key/);
      refusal(() => inspectPrivateKey('-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----'));
      const lines = key.privateKey.trim().split('\n');
      expect(refusal(() => inspectPrivateKey([lines[0], lines[1], lines[lines.length - 1]].join('\n')))).to.match(/truncated|damaged/);
    });
  });

  describe('known_hosts', () => {
    it('keeps host key lines (comments and blanks dropped) and lists their host patterns', () => {
      const line = knownHostsFor('git.example,[git.example]:2222');
      const pinned = parseKnownHosts(`# pinned\n\n${line}\r\n|1|c2FsdA==|aGFzaA== ${line.split(' ').slice(1).join(' ')}\n`);
      expect(pinned.lines).to.equal(2);
      expect(pinned.hosts).to.deep.equal(['git.example', '[git.example]:2222', '(hashed)']);
      expect(pinned.text.endsWith('\n')).to.equal(true);
      expect(pinned.text).not.to.contain('#');
    });

    it('requires at least one line whose key decodes and names its own type', () => {
      expect(refusal(() => parseKnownHosts(''))).to.match(/knownHosts is required/);
      refusal(() => parseKnownHosts('# only a comment'));
      expect(refusal(() => parseKnownHosts('git.example ssh-ed25519'))).to.match(/line 1/);
      expect(refusal(() => parseKnownHosts('git.example ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIFlU3Ls+Xocsz9aHQ20Op+jYYhMRBHxM3IdGZnxYYw9H'))).to.match(/ssh-ed25519 key, the line says ssh-rsa/);
      refusal(() => parseKnownHosts('git.example ssh-ed25519 not*base64'));
    });
  });

  describe('HTTPS token fields', () => {
    it('binds a token to a host name, optionally with a port (443 omitted)', () => {
      expect(normaliseTokenHost(' Git.Example.COM. ')).to.equal('git.example.com');
      expect(normaliseTokenHost('git.example.com:443')).to.equal('git.example.com');
      expect(normaliseTokenHost('git.example.com:8443')).to.equal('git.example.com:8443');
      expect(normaliseTokenHost('10.1.2.3')).to.equal('10.1.2.3');
    });

    it('refuses a scheme, user, path or anything that is not a host', () => {
      for (const bad of ['https://git.example.com', 'git.example.com/org', 'me@git.example.com', 'git example', 'git.example.com:0', 'git.example.com:99999', '-bad-.example']) {
        expect(refusal(() => normaliseTokenHost(bad)), bad).to.match(/host/);
      }
    });

    it('refuses a user name with ":" or spaces, and a token with spaces or line breaks', () => {
      expect(validateTokenUser('oauth2')).to.equal('oauth2');
      refusal(() => validateTokenUser('a:b'));
      refusal(() => validateTokenUser('a b'));
      expect(validateToken(' glpat-abc ')).to.equal('glpat-abc');
      refusal(() => validateToken('two\nlines'));
      refusal(() => validateToken(''));
    });
  });
});
