import { expect } from 'chai';
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { loadConfig } from '../../../infrastructure/config/config';
import { AesGcmSecretBox } from '../../../infrastructure/crypto/secret-box';
import { createTestDatabase } from '../../support/databases';
import { RunningVigil, startVigil } from '../../support/vigil';

type Json = Record<string, any>;
const TOKEN = 'hvs.spec-only-transit-token';

/**
 * A transit-compatible server written for the test: GET /v1/<mount>/keys/<name>, POST
 * encrypt/<name> and decrypt/<name> with a context for derived keys (a key per context from
 * HMAC of the master key), X-Vault-Token checked; ciphertexts "vault:v1:..." as Vault writes them.
 */
async function startTransit(keys: Record<string, { derived: boolean }>, mount = 'transit') {
  const master = randomBytes(32);
  const calls: { method: string; path: string; body: Json }[] = [];
  const keyFor = (context: string) => createHmac('sha256', master).update(context).digest();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => { raw += d; });
    req.on('end', () => {
      const body = raw ? JSON.parse(raw) : {};
      calls.push({ method: req.method!, path: req.url!, body });
      const answer = (status: number, payload: Json) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(payload)); };
      if (req.headers['x-vault-token'] !== TOKEN) return answer(403, { errors: ['permission denied'] });
      const m = new RegExp(`^/v1/${mount}/(keys|encrypt|decrypt)/([^/]+)$`).exec(req.url!);
      const key = m ? keys[m[2]] : undefined;
      if (!m || !key) return answer(404, { errors: [] });
      if (m[1] === 'keys') return answer(200, { data: { name: m[2], type: 'aes256-gcm96', derived: key.derived, latest_version: 1 } });
      if (key.derived && !body.context) return answer(400, { errors: ['missing \'context\' for key derivation; the key was created using a derived key, which means additional, per-request information must be included in order to perform operations with the key'] });
      const k = keyFor(key.derived ? body.context : '');
      if (m[1] === 'encrypt') {
        const iv = randomBytes(12);
        const c = createCipheriv('aes-256-gcm', k, iv);
        const ct = Buffer.concat([c.update(Buffer.from(body.plaintext, 'base64')), c.final(), c.getAuthTag()]);
        return answer(200, { data: { ciphertext: `vault:v1:${Buffer.concat([iv, ct]).toString('base64')}`, key_version: 1 } });
      }
      try {
        const all = Buffer.from(String(body.ciphertext).replace(/^vault:v1:/, ''), 'base64');
        const d = createDecipheriv('aes-256-gcm', k, all.subarray(0, 12));
        d.setAuthTag(all.subarray(all.length - 16));
        const pt = Buffer.concat([d.update(all.subarray(12, all.length - 16)), d.final()]);
        return answer(200, { data: { plaintext: pt.toString('base64') } });
      } catch {
        return answer(400, { errors: ['cipher: message authentication failed'] });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls,
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

describe('External key custody (Vault-compatible transit)', function () {
  this.timeout(90_000);

  it('[S1.8.3-21] asking for it without an endpoint, or without a token, stops the start', () => {
    expect(() => loadConfig({ VIGIL_ENCRYPTION_KMS_TYPE: 'vault', VIGIL_ENCRYPTION_KMS_TOKEN: TOKEN })).to.throw(/VIGIL_ENCRYPTION_KMS_ENDPOINT/);
    expect(() => loadConfig({ VIGIL_ENCRYPTION_KMS_TYPE: 'vault', VIGIL_ENCRYPTION_KMS_ENDPOINT: 'http://127.0.0.1:1' })).to.throw(/VIGIL_ENCRYPTION_KMS_TOKEN/);
    expect(() => loadConfig({ VIGIL_ENCRYPTION_KMS_TYPE: 'vault', VIGIL_ENCRYPTION_KMS_ENDPOINT: 'http://127.0.0.1:1', VIGIL_ENCRYPTION_KMS_TOKEN_FILE: '/nonexistent/token' })).to.throw(/cannot be read/);
    expect(() => loadConfig({ VIGIL_ENCRYPTION_KMS_TYPE: 'aws', VIGIL_ENCRYPTION_KMS_ENDPOINT: 'http://127.0.0.1:1', VIGIL_ENCRYPTION_KMS_TOKEN: TOKEN })).to.throw(/VIGIL_ENCRYPTION_KMS_TYPE/);
  });

  it('[S1.8.3-19] [S1.8.3-20] unset it is the local key; the key name defaults to vigil and the mount path to transit', () => {
    expect(loadConfig({}).kms).to.equal(null);
    expect(loadConfig({ VIGIL_ENCRYPTION_KMS_TYPE: 'vault', VIGIL_ENCRYPTION_KMS_ENDPOINT: 'http://127.0.0.1:1/', VIGIL_ENCRYPTION_KMS_TOKEN: TOKEN }).kms)
      .to.deep.equal({ type: 'vault', endpoint: 'http://127.0.0.1:1', token: TOKEN, keyName: 'vigil', mountPath: 'transit' });
  });

  it('[S1.8.3-22] a transit key that is not derived is refused: the start stops, nothing is wrapped under it', async () => {
    const transit = await startTransit({ vigil: { derived: false } });
    const database = await createTestDatabase('pglite', { migrate: false });
    try {
      let error: Error | null = null;
      try {
        const v = await startVigil({ database, env: { VIGIL_ENCRYPTION_KMS_TYPE: 'vault', VIGIL_ENCRYPTION_KMS_ENDPOINT: transit.url, VIGIL_ENCRYPTION_KMS_TOKEN: TOKEN } });
        await v.stop();
      } catch (e) {
        error = e as Error;
      }
      expect(error?.message).to.match(/is not derived; Vigil refuses to encrypt under it/);
      expect(transit.calls.map((c) => c.path)).to.deep.equal(['/v1/transit/keys/vigil']);
      expect(await database.db.knex('events').where({ type: 'DataKeyWrapped' })).to.have.length(0);
    } finally {
      await database.drop();
      await transit.stop();
    }
  });

  describe('with a derived key', () => {
    let transit: Awaited<ReturnType<typeof startTransit>>;
    before(async () => { transit = await startTransit({ 'vigil-prod': { derived: true } }, 'kms/transit'); });
    after(async () => { await transit?.stop(); });

    it('[S1.8.3-19] the transit engine wraps the data key that seals stored credentials; a restart unwraps it and the credential opens', async () => {
      const env = { VIGIL_ENCRYPTION_KMS_TYPE: 'vault', VIGIL_ENCRYPTION_KMS_ENDPOINT: transit.url, VIGIL_ENCRYPTION_KMS_TOKEN: TOKEN, VIGIL_ENCRYPTION_KMS_KEY_NAME: 'vigil-prod', VIGIL_ENCRYPTION_KMS_MOUNT_PATH: 'kms/transit' };
      const database = await createTestDatabase('pglite', { migrate: false });
      let v: RunningVigil | null = await startVigil({ env, database });
      try {
        const admin = await v.signIn();
        const secret = `glpat-${randomBytes(12).toString('hex')}`;
        const saved = await v.request('POST', '/credentials/https-tokens', { token: admin, body: { name: 'forge', host: 'git.example', username: 'oauth2', token: secret } });
        expect(saved.status, saved.text).to.equal(201);
        const wrapped: Json[] = (await v.database.db.knex('events').where({ type: 'DataKeyWrapped' })).map((r: { data: string }) => JSON.parse(r.data));
        expect(wrapped).to.have.length(1);
        expect(wrapped[0].wrapped).to.match(/^vault:v1:/);
        const encrypt = transit.calls.find((c) => c.path === '/v1/kms/transit/encrypt/vigil-prod')!;
        expect(Buffer.from(encrypt.body.context, 'base64').toString()).to.equal(`vigil data key ${wrapped[0].kid}`);
        const sealed = JSON.parse((await v.database.db.knex('events').where({ type: 'CredentialSaved' }).first()).data);
        expect(JSON.stringify(sealed)).to.include(`"kid":"${wrapped[0].kid}"`);
        const all: { data: string }[] = await v.database.db.knex('events').select('data');
        for (const e of all) expect(e.data).not.to.include(secret);

        await v.stop({ keepDatabase: true });
        v = null;
        const decryptsBefore = transit.calls.filter((c) => c.path.includes('/decrypt/')).length;
        v = await startVigil({ env, database });
        expect(transit.calls.filter((c) => c.path.includes('/decrypt/')).length).to.equal(decryptsBefore + 1);
        expect(await v.database.db.knex('events').where({ type: 'DataKeyWrapped' })).to.have.length(1);
        // The restarted instance seals under the same data key, unwrapped, not a new one.
        const again = await v.request('POST', '/credentials/https-tokens', { token: await v.signIn(), body: { name: 'forge 2', host: 'git.example', username: 'oauth2', token: `${secret}-2` } });
        expect(again.status, again.text).to.equal(201);
        const sealedAgain = JSON.parse((await v.database.db.knex('events').where({ type: 'CredentialSaved' }).orderBy('position', 'desc').first()).data);
        expect(JSON.stringify(sealedAgain)).to.include(`"kid":"${wrapped[0].kid}"`);
        // And that key is the one the transit engine holds wrapped: unwrapped as Vigil does it, it opens the credential.
        const unwrapped = await fetch(`${transit.url}/v1/kms/transit/decrypt/vigil-prod`, {
          method: 'POST', headers: { 'X-Vault-Token': TOKEN, 'content-type': 'application/json' },
          body: JSON.stringify({ ciphertext: wrapped[0].wrapped, context: Buffer.from(`vigil data key ${wrapped[0].kid}`).toString('base64') }),
        }).then((r) => r.json()) as { data: { plaintext: string } };
        const box = new AesGcmSecretBox(Buffer.from(unwrapped.data.plaintext, 'base64'));
        const stream = `credential-${saved.body.id}`;
        const found = JSON.stringify(sealed).match(/\{"alg":"A256GCM"[^}]*\}/)![0];
        expect(box.open(JSON.parse(found), stream)).to.equal(secret);
      } finally {
        await v?.stop();
      }
    });
  });
});
