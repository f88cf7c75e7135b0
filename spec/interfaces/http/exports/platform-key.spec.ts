import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../../../infrastructure/config/config';
import { createTestDatabase } from '../../../support/databases';
import { RunningVigil, startVigil } from '../../../support/vigil';

const KEY = () => randomBytes(32).toString('base64');
const dir = mkdtempSync(join(tmpdir(), 'vigil-platform-key-'));
const openssl = (...args: string[]) => execFileSync('openssl', args, { encoding: 'buffer', stdio: ['pipe', 'pipe', 'ignore'] });

/** The fingerprint as a third party computes it from the served PEM: SHA-256 of the DER SubjectPublicKeyInfo. */
function opensslFingerprint(pem: string): string {
  const file = join(dir, `pub-${randomBytes(4).toString('hex')}.pem`);
  writeFileSync(file, pem);
  const der = openssl('pkey', '-pubin', '-in', file, '-outform', 'DER');
  return execFileSync('sha256sum', { input: der, encoding: 'utf8' }).split(' ')[0];
}

describe('platform signing key (spec 1 §1.9, §8.3) @db', function () {
  this.timeout(60_000);
  const running: RunningVigil[] = [];
  afterEach(async () => { for (const v of running.splice(0)) await v.stop().catch(() => undefined); });

  it('[S1.1-14] [S1.8.3-13] GET /crypto/public-key.pub needs no credential; the key is generated on first use, stored sealed once, and GET /health shows its SHA-256 fingerprint', async () => {
    const v = await startVigil({ env: { ENCRYPTION_KEY: KEY() } });
    running.push(v);
    expect((await v.request('GET', '/health')).body.signingKey).to.deep.equal({ fingerprint: null });
    const first = await v.request('GET', '/crypto/public-key.pub');
    expect(first.status).to.equal(200);
    expect(first.headers.get('content-type')).to.match(/^application\/x-pem-file/);
    expect(first.text).to.match(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+-----END PUBLIC KEY-----\n$/);
    expect(openssl('pkey', '-pubin', '-in', (writeFileSync(join(dir, 'p.pem'), first.text), join(dir, 'p.pem')), '-noout', '-text').toString()).to.match(/P-256|prime256v1/);
    const fingerprint = opensslFingerprint(first.text);
    expect((await v.request('GET', '/health')).body.signingKey).to.deep.equal({ fingerprint });
    expect((await v.request('GET', '/crypto/public-key.pub')).text).to.equal(first.text);
    const stored = await v.database.db.knex('events').where({ stream_id: 'platform-signing-key' });
    expect(stored).to.have.length(1);
    // Sealed: the private key never appears in clear in the log.
    expect(JSON.stringify(stored[0])).not.to.match(/PRIVATE KEY/);
  });

  it('[S1.8.3-13] two instances on one database asking for the first time together keep one key', async () => {
    const key = KEY();
    const database = await createTestDatabase('pglite', { migrate: false });
    const a = await startVigil({ env: { ENCRYPTION_KEY: key }, database });
    const b = await startVigil({ env: { ENCRYPTION_KEY: key }, database });
    try {
      const [x, y] = await Promise.all([a.request('GET', '/crypto/public-key.pub'), b.request('GET', '/crypto/public-key.pub')]);
      expect([x.status, y.status]).to.deep.equal([200, 200]);
      expect(x.text).to.equal(y.text);
      expect(await database.db.knex('events').where({ stream_id: 'platform-signing-key' })).to.have.length(1);
    } finally {
      await a.stop({ keepDatabase: true });
      await b.stop();
    }
  });

  it('[S1.8.3-15] without ENCRYPTION_KEY nothing is signed: a clear 409 and nothing written', async () => {
    const v = await startVigil();
    running.push(v);
    const before = await v.eventCount();
    const answer = await v.request('GET', '/crypto/public-key.pub');
    expect(answer.status).to.equal(409);
    expect(answer.headers.get('content-type')).to.match(/problem\+json/);
    expect(answer.body.detail).to.match(/without ENCRYPTION_KEY/);
    expect(await v.eventCount()).to.equal(before);
  });

  it('[S1.8.3-16] a stored key that no configured ENCRYPTION_KEY opens is refused with a clear problem and never replaced; the previous key opens it again', async () => {
    const original = KEY();
    const database = await createTestDatabase('pglite', { migrate: false });
    const first = await startVigil({ env: { ENCRYPTION_KEY: original }, database });
    const pem = (await first.request('GET', '/crypto/public-key.pub')).text;
    await first.stop({ keepDatabase: true });
    const rotated = await startVigil({ env: { ENCRYPTION_KEY: KEY() }, database });
    const before = await rotated.eventCount();
    const refused = await rotated.request('GET', '/crypto/public-key.pub');
    expect(refused.status).to.equal(409);
    expect(refused.body.detail).to.match(/stored platform signing key .* cannot be opened.*never replaced/);
    expect(await rotated.eventCount()).to.equal(before);
    await rotated.stop({ keepDatabase: true });
    const withPrevious = await startVigil({ env: { ENCRYPTION_KEY: KEY(), VIGIL_PREVIOUS_ENCRYPTION_KEYS: original }, database });
    running.push(withPrevious);
    expect((await withPrevious.request('GET', '/crypto/public-key.pub')).text).to.equal(pem);
  });

  it('[S1.8.3-14] VIGIL_SIGNING_KEY (or _FILE) names the key: an ECDSA P-256 PKCS#8 PEM; anything else stops the start', async () => {
    const keyFile = join(dir, 'signing.pem');
    writeFileSync(keyFile, openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'));
    const expected = openssl('pkey', '-in', keyFile, '-pubout').toString();
    const v = await startVigil({ env: { ENCRYPTION_KEY: KEY(), VIGIL_SIGNING_KEY_FILE: keyFile } });
    running.push(v);
    expect((await v.request('GET', '/crypto/public-key.pub')).text).to.equal(expected);
    expect(await v.database.db.knex('events').where({ stream_id: 'platform-signing-key' })).to.have.length(0);
    expect(loadConfig({ VIGIL_SIGNING_KEY: readFileSync(keyFile, 'utf8') }).exports.signingKeyPem).to.contain('BEGIN PRIVATE KEY');
    const rsa = join(dir, 'rsa.pem');
    writeFileSync(rsa, openssl('genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1024'));
    expect(() => loadConfig({ VIGIL_SIGNING_KEY_FILE: rsa })).to.throw(/VIGIL_SIGNING_KEY_FILE.*P-256/);
    const p384 = openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-384').toString();
    expect(() => loadConfig({ VIGIL_SIGNING_KEY: p384 })).to.throw(/VIGIL_SIGNING_KEY.*secp384r1.*P-256/);
    expect(() => loadConfig({ VIGIL_SIGNING_KEY: 'not a key' })).to.throw(/VIGIL_SIGNING_KEY.*PKCS#8/);
  });
});
