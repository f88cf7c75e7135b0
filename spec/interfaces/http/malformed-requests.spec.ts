import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import { RunningVigil, startVigil } from '../../support/vigil';

/** Malformed requests the fuzz suite found answering 500 (issue #17): each is a 400 problem that writes nothing. */
describe('Malformed requests are 400, never 500 (issue #17)', function () {
  this.timeout(60_000);
  let v: RunningVigil;
  let admin: string;
  before(async () => { v = await startVigil(); admin = await v.signIn(); });
  after(async () => { await v.stop(); });

  const refused = async (method: string, path: string, options: Parameters<RunningVigil['request']>[2], detail: RegExp) => {
    const before = await v.eventCount();
    const r = await v.request(method, path, { token: admin, ...options });
    expect(r.status, r.text).to.equal(400);
    expect(r.headers.get('content-type')).to.match(/application\/problem\+json/);
    expect(r.body.detail).to.match(detail);
    expect(await v.eventCount(), 'nothing written').to.equal(before);
  };

  it('a body whose Content-Encoding (gzip, deflate) does not decode; an encoding not taken (br)', async () => {
    for (const encoding of ['gzip', 'deflate']) {
      await refused('POST', '/teams', { raw: '{"name":"a"}', contentType: 'application/json', headers: { 'content-encoding': encoding } }, /does not decode as its Content-Encoding/);
    }
    await refused('POST', '/teams', { raw: '{"name":"a"}', contentType: 'application/json', headers: { 'content-encoding': 'br' } }, /unsupported content encoding "br"/);
  });

  it('a gzip body that does decode is read as its JSON', async () => {
    const r = await v.request('POST', '/teams', { token: admin, raw: gzipSync(JSON.stringify({ name: 'zipped' })), contentType: 'application/json', headers: { 'content-encoding': 'gzip' } });
    expect(r.status, r.text).to.equal(201);
    expect(r.body.name).to.equal('zipped');
  });

  it('an id past the 32-bit columns, in the path, the query or the body', async () => {
    await refused('GET', '/repositories/4294967296', {}, /params\.id must be <= 2147483647/);
    await refused('GET', '/scans?repo_id=4294967296', {}, /repo_id must be <= 2147483647/);
    await refused('POST', '/teams/1/members', { body: { accountId: 2 ** 53 - 1 } }, /accountId must be <= 2147483647/);
  });

  it('an integer path parameter written otherwise than in decimal digits (Infinity, 1e3, 0x10, +1)', async () => {
    for (const id of ['Infinity', '1e3', '0x10', '%2B1', '01']) {
      await refused('GET', `/projects/${id}/compliance`, {}, /params\.id must be a whole number written in decimal digits/);
    }
  });
});

describe('Settings named like Object.prototype members (found by the fuzz suite)', function () {
  this.timeout(60_000);
  let v: RunningVigil;
  before(async () => { v = await startVigil(); });
  after(async () => { await v.stop(); });

  it('"__proto__", "constructor" and "toString" are unknown settings: 400, nothing written', async () => {
    const admin = await v.signIn();
    for (const raw of ['{"__proto__":0}', '{"__proto__":0,"__proto__":null}', '{"constructor":1}', '{"toString":true}']) {
      const before = await v.eventCount();
      const r = await v.request('PATCH', '/settings', { token: admin, raw, contentType: 'application/json' });
      expect(r.status, `${raw}: ${r.text}`).to.equal(400);
      expect(r.body.detail).to.match(/Unknown setting/);
      expect(await v.eventCount()).to.equal(before);
    }
  });
});
