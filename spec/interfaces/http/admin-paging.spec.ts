import { expect } from 'chai';
import { RunningVigil, startVigil } from '../../support/vigil';

/**
 * The administration lists page by id like GET /issues (issue #16: long lists paged): limit (1 to
 * 1000, default 100) and after, the next page named by Link rel="next".
 */
describe('GET /accounts, /teams and /api-keys page by id through Link', function () {
  this.timeout(60_000);
  let v: RunningVigil;
  let admin: string;

  before(async () => {
    v = await startVigil();
    admin = await v.signIn();
    for (let i = 0; i < 4; i++) await v.account(['reader'], `paged-${i}`);
    for (let i = 0; i < 5; i++) expect((await v.request('POST', '/teams', { token: admin, body: { name: `team-${i}` } })).status).to.equal(201);
    for (let i = 0; i < 5; i++) await v.key(admin, { name: `key-${i}`, scopes: ['read'] });
  });
  after(async () => { await v?.stop(); });

  /** Every page from `path`, following Link rel="next". */
  async function walk(path: string, token = admin): Promise<{ ids: number[]; pages: number }> {
    const ids: number[] = [];
    let next: string | null = path;
    let pages = 0;
    while (next && pages < 20) {
      const r = await v.request('GET', next, { token });
      expect(r.status, r.text).to.equal(200);
      ids.push(...r.body.map((x: { id: number }) => x.id));
      pages++;
      const m = /<\/api\/v1([^>]+)>; rel="next"/.exec(r.headers.get('link') ?? '');
      next = m ? m[1] : null;
    }
    return { ids, pages };
  }

  for (const path of ['/accounts', '/teams', '/api-keys']) {
    it(`${path}: pages of 2 through Link give every row once, in id order, as the whole list does`, async () => {
      const whole = await v.request('GET', path, { token: admin });
      expect(whole.status).to.equal(200);
      expect(whole.headers.get('link')).to.equal(null);
      const all = whole.body.map((x: { id: number }) => x.id);
      expect(all.length).to.be.at.least(5);
      const paged = await walk(`${path}?limit=2`);
      expect(paged.ids).to.deep.equal(all);
      expect(paged.pages).to.equal(Math.ceil(all.length / 2));
      const rest = await v.request('GET', `${path}?after=${all[1]}`, { token: admin });
      expect(rest.body.map((x: { id: number }) => x.id)).to.deep.equal(all.slice(2));
    });

    it(`${path}: a limit or after out of bounds, or not a number, is refused with 400 (problem+json)`, async () => {
      for (const query of ['limit=0', 'limit=1001', 'limit=two', 'after=-1', 'after=1.5']) {
        const r = await v.request('GET', `${path}?${query}`, { token: admin });
        expect(r.status, `${path}?${query}`).to.equal(400);
        expect(r.headers.get('content-type')).to.contain('application/problem+json');
      }
    });
  }

  it('a writer pages through their own keys only', async () => {
    const writer = await v.account(['writer'], 'paged-writer');
    for (let i = 0; i < 3; i++) await v.key(writer.token, { name: `own-${i}`, scopes: ['read'] });
    const paged = await walk('/api-keys?limit=2', writer.token);
    expect(paged.ids).to.have.length(3);
    const listed = (await v.request('GET', '/api-keys?limit=1000', { token: writer.token })).body;
    expect(listed.every((k: { accountId: number }) => k.accountId === writer.id)).to.equal(true);
  });
});
