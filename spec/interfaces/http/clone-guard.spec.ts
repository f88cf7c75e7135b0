import { expect } from 'chai';
import { RunningVigil, startVigil } from '../../support/vigil';

/**
 * The clone guard on entry over HTTP (issue #17): addresses are classed by the classifier the feeds
 * share (infrastructure/network/address-classes.ts), IPv6 forms carrying an IPv4 address by that
 * address, and 192.0.0.0/24 with the other reserved ranges. VIGIL_GIT_ALLOWED_HOSTS is empty.
 */
describe('The clone guard on entry: address classes (POST and PATCH /api/v1/repositories)', function () {
  this.timeout(60_000);
  let v: RunningVigil;
  let admin: string;
  let n = 0;

  before(async () => {
    v = await startVigil();
    admin = await v.signIn();
  });
  after(async () => { await v?.stop(); });

  const register = (url: string) => v.request('POST', '/repositories', { token: admin, body: { url, scanManualOnly: true, name: `guarded ${++n}` } });
  const refused = async (url: string, detail: RegExp) => {
    const before = await v.eventCount();
    const r = await register(url);
    expect(r.status, `${url}: ${r.text}`).to.equal(400);
    expect(r.headers.get('content-type')).to.match(/application\/problem\+json/);
    expect(r.body.detail, url).to.match(/clone guard refuses/).and.match(detail);
    expect(await v.eventCount(), `${url}: nothing written`).to.equal(before);
  };

  const carried: Array<[string, string]> = [
    ['http://[::a9fe:a9fe]/org/repo.git', 'IPv4-compatible'],
    ['https://[::ffff:169.254.169.254]/org/repo.git', 'IPv4-mapped'],
    ['https://[::ffff:0:a9fe:a9fe]/org/repo.git', 'IPv4-translated'],
    ['https://[64:ff9b::a9fe:a9fe]/org/repo.git', 'NAT64'],
    ['https://[64:ff9b:1::a9fe:a9fe]/org/repo.git', 'NAT64 local-use'],
    ['https://[2002:a9fe:a9fe::]/org/repo.git', '6to4'],
    ['https://[2001:0:4136:e378:8000:63bf:5601:5601]/org/repo.git', 'Teredo \\(client\\)'],
    ['https://[2001:0:a9fe:a9fe:8000:63bf:f7f7:f7f7]/org/repo.git', 'Teredo \\(server\\)'],
    ['ssh://git@[2002:a9fe:a9fe::]/org/repo.git', '6to4'],
    ['git://[::a9fe:a9fe]/org/repo.git', 'IPv4-compatible'],
    ['git@[2002:a9fe:a9fe::]:org/repo.git', '6to4'],
  ];
  for (const [url, form] of carried) {
    it(`[S1.8.3-32] [S1.8.3-33] ${url}: 400, the ${form.replace(/\\/g, '')} form of the metadata address, nothing written`, async () => {
      await refused(url, new RegExp(`the ${form} form of 169\\.254\\.169\\.254, a cloud metadata address \\(link-local\\)`));
    });
  }

  it('[S1.8.3-32] [S1.8.3-33] 192.0.0.192 (a metadata address): 400, nothing written', async () => {
    await refused('https://192.0.0.192/org/repo.git', /192\.0\.0\.192 is a cloud metadata address \(IETF protocol assignments\)/);
  });

  it('[S1.8.3-32] link-local forms carrying a link-local (not metadata) address: 400', async () => {
    await refused('https://[2002:a9fe:0101::]/org/repo.git', /the 6to4 form of 169\.254\.1\.1, a link-local address/);
  });

  it('[S1.8.3-32] other reserved ranges (documentation, the rest of 192.0.0.0/24) are left to the allowed-host list: 201', async () => {
    for (const url of ['https://192.0.2.10/org/doc.git', 'https://192.0.0.8/org/ietf.git', 'https://[2001:db8::1]/org/doc6.git']) {
      const r = await register(url);
      expect(r.status, `${url}: ${r.text}`).to.equal(201);
    }
  });

  it('[S1.8.3-32] private and public addresses carried in IPv6 pass, as their IPv4 forms do', async () => {
    for (const url of ['https://[::ffff:10.1.2.3]/org/repo.git', 'https://[2002:c0a8:0101::1]/org/repo.git', 'https://[2002:808:808::1]/org/repo.git', 'https://192.0.1.1/org/repo.git']) {
      const r = await register(url);
      expect(r.status, `${url}: ${r.text}`).to.equal(201);
    }
  });

  it('[S1.8.3-33] a PATCH moving the URL to a carried metadata address: 400, the URL kept', async () => {
    const created = await register('https://git.example/org/kept.git');
    expect(created.status, created.text).to.equal(201);
    const before = await v.eventCount();
    const moved = await v.request('PATCH', `/repositories/${created.body.id}`, { token: admin, body: { url: 'https://[64:ff9b::a9fe:a9fe]/org/repo.git' } });
    expect(moved.status, moved.text).to.equal(400);
    expect(moved.body.detail).to.match(/NAT64 form of 169\.254\.169\.254/);
    expect(await v.eventCount()).to.equal(before);
    expect((await v.request('GET', `/repositories/${created.body.id}`, { token: admin })).body.url).to.equal('https://git.example/org/kept.git');
  });
});
