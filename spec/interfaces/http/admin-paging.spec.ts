import { expect } from 'chai';
import { newEncryptionKey } from '../../support/credentials';
import { RunningVigil, startVigil } from '../../support/vigil';
import { linkPages } from '../../support/link-pages';

/**
 * The long lists page by id like GET /issues (issue #16: long lists paged), one mechanism
 * (interfaces/http/id-paging.ts) for all: limit (1 to 1000, default 100) and after, the next page
 * named by Link rel="next".
 */
describe('GET /accounts, /teams, /api-keys, /sarif-sources, /credentials, /projects and /solutions page by id through Link', function () {
  this.timeout(60_000);
  let v: RunningVigil;
  let admin: string;
  const projectIds: number[] = [];

  before(async () => {
    v = await startVigil({ env: { ENCRYPTION_KEY: newEncryptionKey() } });
    admin = await v.signIn();
    const created = async (path: string, body: Record<string, unknown>, token = admin) => {
      const r = await v.request('POST', path, { token, body });
      expect(r.status, `${path}: ${r.text}`).to.equal(201);
      return r.body.id as number;
    };
    for (let i = 0; i < 4; i++) await v.account(['reader'], `paged-${i}`);
    for (let i = 0; i < 5; i++) await created('/teams', { name: `team-${i}` });
    for (let i = 0; i < 5; i++) await v.key(admin, { name: `key-${i}`, scopes: ['read'] });
    const governor = await v.account(['platform_governor'], 'paged-governor');
    const repository = await created('/repositories', { url: 'https://git.example/paged/repo', scanManualOnly: true });
    for (let i = 0; i < 5; i++) {
      const key = await v.key(admin, { name: `source-key-${i}`, scopes: ['sarif_import'] });
      // Slugs against the id order: the list is by id, not by slug.
      await created('/sarif-sources', { slug: `src-${9 - i}`, name: `Source ${i}`, api_key_id: key.id, repository_id: repository, kinds: ['sarif'], tools: ['Semgrep OSS'] }, governor.token);
    }
    for (let i = 0; i < 5; i++) await created('/credentials/https-tokens', { name: `token ${i}`, host: 'git.example', username: 'oauth2', token: `glpat-paged-token-${i}-0123456789` });
    for (let i = 0; i < 5; i++) {
      const solution = await created('/solutions', { name: `Solution ${i}` });
      projectIds.push(await created('/projects', { name: `Project ${i}`, solutionId: solution }));
    }
  });
  after(async () => { await v?.stop(); });

  /** Every page from `path`, following Link rel="next". */
  async function walk(path: string, token = admin): Promise<{ ids: number[]; pages: number }> {
    const { items, pages } = await linkPages<{ id: number }>(v, path, token, 20);
    return { ids: items.map((x) => x.id), pages };
  }

  for (const path of ['/accounts', '/teams', '/api-keys', '/sarif-sources', '/credentials', '/projects', '/solutions']) {
    it(`${path}: pages of 2 through Link give every row once, in id order, as the whole list does`, async () => {
      const whole = await v.request('GET', path, { token: admin });
      expect(whole.status).to.equal(200);
      expect(whole.headers.get('link')).to.equal(null);
      const all = whole.body.map((x: { id: number }) => x.id);
      expect(all.length).to.be.at.least(5);
      expect(all).to.deep.equal([...all].sort((a: number, b: number) => a - b));
      const paged = await walk(`${path}?limit=2`);
      expect(paged.ids).to.deep.equal(all);
      expect(paged.pages).to.equal(Math.ceil(all.length / 2));
      const rest = await v.request('GET', `${path}?after=${all[1]}`, { token: admin });
      expect(rest.body.map((x: { id: number }) => x.id)).to.deep.equal(all.slice(2));
    });

    it(`${path}: a limit or after out of bounds, or not a number, is refused with 400 (problem+json)`, async () => {
      for (const query of ['limit=0', 'limit=1001', 'limit=two', 'after=-1', 'after=1.5', 'after=']) {
        const r = await v.request('GET', `${path}?${query}`, { token: admin });
        expect(r.status, `${path}?${query}`).to.equal(400);
        expect(r.headers.get('content-type')).to.contain('application/problem+json');
        expect(r.body.detail, `${path}?${query}`).to.be.a('string').and.not.equal('');
      }
    });
  }

  it('without limit a page holds 100 rows, and Link names the next from the 100th', async () => {
    for (let i = 5; i < 101; i++) expect((await v.request('POST', '/projects', { token: admin, body: { name: `More ${i}` } })).status).to.equal(201);
    const first = await v.request('GET', '/projects', { token: admin });
    expect(first.body).to.have.length(100);
    expect(first.headers.get('link')).to.equal(`</api/v1/projects?limit=100&after=${first.body[99].id}>; rel="next"`);
    const all = await v.request('GET', '/projects?limit=1000', { token: admin });
    expect(all.body.length).to.equal(101);
    expect(all.headers.get('link')).to.equal(null);
  });

  it('a writer pages through their own keys only', async () => {
    const writer = await v.account(['writer'], 'paged-writer');
    for (let i = 0; i < 3; i++) await v.key(writer.token, { name: `own-${i}`, scopes: ['read'] });
    const paged = await walk('/api-keys?limit=2', writer.token);
    expect(paged.ids).to.have.length(3);
    const listed = (await v.request('GET', '/api-keys?limit=1000', { token: writer.token })).body;
    expect(listed.every((k: { accountId: number }) => k.accountId === writer.id)).to.equal(true);
  });

  it('a reader pages through the projects their teams are granted only, each once, the pages sized by what they see', async () => {
    const reader = await v.account(['reader'], 'paged-project-reader');
    const team = (await v.request('POST', '/teams', { token: admin, body: { name: 'paged-projects' } })).body.id;
    expect((await v.request('POST', `/teams/${team}/members`, { token: admin, body: { accountId: reader.id } })).status).to.be.oneOf([200, 201]);
    const granted = [projectIds[0], projectIds[2], projectIds[4]];
    for (const id of granted) expect((await v.request('POST', `/teams/${team}/grants`, { token: admin, body: { kind: 'project', id } })).status).to.equal(201);
    const paged = await walk('/projects?limit=2', reader.token);
    expect(paged.ids).to.deep.equal(granted);
    expect(paged.pages).to.equal(2);
    // Every solution is listed; a solution's projects are those the reader sees.
    const solutions = (await v.request('GET', '/solutions?limit=1000', { token: reader.token })).body as Array<{ projects: Array<{ id: number }> }>;
    expect(solutions.flatMap((s) => s.projects.map((p) => p.id))).to.deep.equal(granted);
  });
});
