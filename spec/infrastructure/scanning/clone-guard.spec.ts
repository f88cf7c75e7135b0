import { expect } from 'chai';
import {
  CloneGuard, CloneUrlRefused, hostMatches, Lookup, parseAllowedHosts, parseCloneUrl, redactUrl, refusedAddress,
} from '../../../infrastructure/scanning/clone-guard';

const resolver = (table: Record<string, string[]>): Lookup => async (host) => {
  const addresses = table[host];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addresses;
};

describe('Clone guard (infrastructure/scanning/clone-guard.ts)', () => {
  describe('clone URLs', () => {
    it('reads https, http, ssh, git and scp-form URLs', () => {
      expect(parseCloneUrl('https://GitHub.com/org/repo.git')).to.include({ scheme: 'https', host: 'github.com', port: null });
      expect(parseCloneUrl('http://git.local:8080/r')).to.include({ scheme: 'http', host: 'git.local', port: 8080 });
      expect(parseCloneUrl('ssh://git@git.example.com:2222/r.git')).to.include({ scheme: 'ssh', host: 'git.example.com', port: 2222 });
      expect(parseCloneUrl('git+ssh://git@host/r')).to.include({ scheme: 'ssh', host: 'host' });
      expect(parseCloneUrl('git://127.0.0.1:9418/r.git')).to.include({ scheme: 'git', host: '127.0.0.1', port: 9418 });
      expect(parseCloneUrl('git@github.com:org/repo.git')).to.include({ scheme: 'ssh', host: 'github.com' });
      expect(parseCloneUrl('[fe80::1]:org/repo.git')).to.include({ scheme: 'ssh', host: 'fe80::1' });
      expect(parseCloneUrl('https://[::1]:8443/r')).to.include({ host: '::1', port: 8443 });
    });

    it('[S1.3.1-14] refuses transports that read the scanning host or run commands', () => {
      for (const url of ['file:///etc', '/var/lib/vigil/repo', './repo', 'ext::sh -c id', 'fd::3', 'ftp://host/r', 'C:\\repos\\x', 'https://', 'https://exa mple.com/r', 'https://bad_host!/r']) {
        expect(() => parseCloneUrl(url), url).to.throw(CloneUrlRefused);
      }
    });

    it('never shows a password or token from the URL', () => {
      expect(redactUrl('https://user:ghp_secret@github.com/o/r')).to.equal('https://user:***@github.com/o/r');
      expect(parseCloneUrl('https://x:tok@host/r').display).to.equal('https://x:***@host/r');
    });
  });

  describe('VIGIL_GIT_ALLOWED_HOSTS', () => {
    it('[S1.8.3-31] reads a comma list with wildcards and refuses malformed entries', () => {
      expect(parseAllowedHosts(' git.example.com, *.Corp.example ,,[::1], 10.0.0.1 ')).to.deep.equal(['git.example.com', '*.corp.example', '::1', '10.0.0.1']);
      expect(parseAllowedHosts('')).to.deep.equal([]);
      for (const bad of ['*', 'a.*.com', 'exa mple.com', '*.', 'http://x.com', 'x/y']) expect(() => parseAllowedHosts(bad), bad).to.throw(/not a host name/);
    });

    it('[S1.8.3-31] a wildcard matches names below the domain at any depth, never the domain itself or a look-alike', () => {
      expect(hostMatches('git.example.com', '*.example.com')).to.equal(true);
      expect(hostMatches('a.b.example.com', '*.example.com')).to.equal(true);
      expect(hostMatches('example.com', '*.example.com')).to.equal(false);
      expect(hostMatches('evilexample.com', '*.example.com')).to.equal(false);
      expect(hostMatches('example.com.evil.net', '*.example.com')).to.equal(false);
      expect(hostMatches('GIT.example.com.', 'git.example.com')).to.equal(true);
      expect(hostMatches('0:0:0:0:0:0:0:1', '::1')).to.equal(true);
    });
  });

  describe('addresses', () => {
    it('[S1.8.3-32] refuses link-local and metadata addresses in every spelling', () => {
      for (const address of ['169.254.169.254', '169.254.0.1', '169.254.255.255', 'fe80::1', 'febf::1', 'fd00:ec2::254', '::ffff:169.254.169.254', '64:ff9b::a9fe:a9fe', '100.100.100.200', '168.63.129.16']) {
        expect(refusedAddress(address), address).to.be.a('string');
      }
      for (const address of ['127.0.0.1', '10.1.2.3', '192.168.1.1', '140.82.112.3', '::1', '2606:50c0:8000::153', 'fd00:ec2::253', '169.253.1.1']) {
        expect(refusedAddress(address), address).to.equal(null);
      }
    });
  });

  describe('addresses classed by the shared classifier (issue #17)', () => {
    it('[S1.8.3-32] refuses every IPv6 form carrying a link-local or metadata IPv4 address, and names the form', () => {
      for (const address of [
        '::a9fe:a9fe', '::ffff:0:a9fe:a9fe', '64:ff9b:1::a9fe:a9fe', '2002:a9fe:a9fe::', '2002:a9fe:0101::1', '2001:0:4136:e378:8000:63bf:5601:5601', '2001:0:a9fe:a9fe::1',
      ]) {
        expect(refusedAddress(address), address).to.be.a('string').and.match(/form of 169\.254\./);
      }
      expect(refusedAddress('2002:a9fe:a9fe::')).to.equal('2002:a9fe:a9fe:: is the 6to4 form of 169.254.169.254, a cloud metadata address (link-local)');
    });

    it('[S1.8.3-32] refuses 192.0.0.192 (a metadata address) and leaves the other reserved ranges to the allowed-host list', () => {
      expect(refusedAddress('192.0.0.192')).to.equal('192.0.0.192 is a cloud metadata address (IETF protocol assignments)');
      for (const address of ['192.0.0.1', '192.0.0.170', '224.0.0.1', '240.0.0.1', '192.0.2.10', 'ff02::1', '2001:db8::1']) {
        expect(refusedAddress(address), address).to.equal(null);
      }
    });

    it('[S1.8.3-32] leaves private and loopback addresses, carried or not, to the list', () => {
      for (const address of ['::ffff:10.0.0.1', '2002:c0a8:0101::1', '64:ff9b::a00:1', '::ffff:127.0.0.1', '2002:808:808::1', '192.0.1.1']) {
        expect(refusedAddress(address), address).to.equal(null);
      }
    });
  });

  describe('check', () => {
    const lookup = resolver({
      'git.example.com': ['140.82.112.3'],
      'rebound.example.com': ['140.82.112.4', '169.254.169.254'],
      'v6.example.com': ['2606:50c0:8000::153'],
      'll6.example.com': ['fe80::abcd'],
      localhost: ['127.0.0.1', '::1'],
    });

    it('[S1.8.3-32] with no list, allows any host whose addresses are all acceptable, and gives them for pinning', async () => {
      const guard = new CloneGuard({ allowedHosts: [], lookup });
      expect(await guard.check('https://git.example.com/o/r.git')).to.deep.include({ allowed: true, addresses: ['140.82.112.3'] });
      expect(await guard.check('git://localhost:9418/r.git')).to.deep.include({ allowed: true, addresses: ['127.0.0.1', '::1'] });
      expect(await guard.check('git@v6.example.com:o/r.git')).to.deep.include({ allowed: true });
    });

    it('[S1.3.1-14] refuses the metadata address, link-local ranges and metadata names, permanently', async () => {
      const guard = new CloneGuard({ allowedHosts: [], lookup });
      for (const url of [
        'http://169.254.169.254/latest/meta-data', 'https://169.254.10.10/r.git', 'https://[fe80::1]/r.git', 'https://[fd00:ec2::254]/r',
        'http://metadata.google.internal/computeMetadata/v1/', 'git@metadata.google.internal:x/y', 'https://ll6.example.com/r',
      ]) {
        const verdict = await guard.check(url);
        expect(verdict, url).to.deep.include({ allowed: false, permanent: true });
        expect((verdict as { reason: string }).reason, url).to.match(/clone guard refuses/);
      }
    });

    it('[S1.8.3-32] resolves first: a permitted name that resolves to a metadata address is refused (DNS rebinding)', async () => {
      const verdict = await new CloneGuard({ allowedHosts: ['*.example.com'], lookup }).check('https://rebound.example.com/r.git');
      expect(verdict).to.deep.include({ allowed: false, permanent: true });
      expect((verdict as { reason: string }).reason).to.include('rebound.example.com resolves to 169.254.169.254 is a cloud metadata address');
    });

    it('[S1.8.3-31] with a list, a host not on it is refused before any lookup', async () => {
      let looked = 0;
      const guard = new CloneGuard({ allowedHosts: ['git.example.com', '*.corp.example'], lookup: async (h) => { looked++; return lookup(h); } });
      const verdict = await guard.check('git://127.0.0.1:9418/r.git');
      expect(verdict).to.deep.include({ allowed: false, permanent: true });
      expect((verdict as { reason: string }).reason).to.include('not in VIGIL_GIT_ALLOWED_HOSTS');
      expect(looked).to.equal(0);
      expect(await guard.check('https://git.example.com/r')).to.deep.include({ allowed: true });
    });

    it('[S1.3.1-16] a name that does not resolve is a network failure (transient), not a refusal', async () => {
      const verdict = await new CloneGuard({ allowedHosts: [], lookup }).check('https://nowhere.invalid/r.git');
      expect(verdict).to.deep.include({ allowed: false, permanent: false });
      expect((verdict as { reason: string }).reason).to.include('ENOTFOUND');
    });

    it('[S1.3.1-14] an unusable URL is a permanent refusal, not an exception', async () => {
      expect(await new CloneGuard({ allowedHosts: [], lookup }).check('file:///etc/passwd')).to.deep.include({ allowed: false, permanent: true });
    });

    it('uses the system resolver by default (localhost resolves to loopback)', async () => {
      const verdict = await new CloneGuard({ allowedHosts: [] }).check('git://localhost/r.git');
      expect(verdict.allowed).to.equal(true);
    });
  });
});
