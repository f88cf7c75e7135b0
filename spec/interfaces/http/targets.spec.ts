import { expect } from 'chai';
import { RunningVigil, startVigil } from '../../support/vigil';

describe('Targets over HTTP', function () {
  let v: RunningVigil;
  let admin: string;

  before(async () => {
    v = await startVigil();
    admin = await v.signIn();
  });
  after(async () => { await v.stop(); });

  const register = (body: Record<string, unknown>, token = admin) => v.request('POST', '/repositories', { token, body });

  it('[S1.2.1-01] [S1.4.2-01] [S1.4.2-02] registers a repository with an integer id, branch main, scanManualOnly and schedule', async () => {
    const r = await register({ url: 'https://git.example/team/service-a.git' });
    expect(r.status).to.equal(201);
    expect(r.body.id).to.be.a('number').and.satisfy(Number.isInteger);
    expect(r.body).to.include({ branch: 'main', subPath: '', scanManualOnly: false, scanIntervalMinutes: null, scanCron: null, name: 'service-a' });
    expect(r.body.schedule).to.deep.equal({ mode: 'default', intervalMinutes: 10080 });
    expect(r.body.detectedLanguages).to.equal(null);
    const read = await v.request('GET', `/repositories/${r.body.id}`, { token: admin });
    expect(read.body).to.deep.equal(r.body);
  });

  it('[S1.2.1-33] [S1.2.1-34] refuses the same repository under another spelling with 409 target-already-registered naming it', async () => {
    const first = await register({ url: 'https://Git.Example/Org/Repo.git/' });
    const before = await v.eventCount();
    const second = await register({ url: 'ssh://git@git.example:22/org/repo' });
    expect(second.status).to.equal(409);
    expect(second.body.type).to.equal('urn:vigil:problem:target-already-registered');
    expect(second.body.existingRepositoryId).to.equal(first.body.id);
    expect(second.body.detail).to.contain(String(first.body.id));
    expect(await v.eventCount()).to.equal(before);
  });

  it('[S1.2.1-35] accepts the same repository on another branch or sub-path', async () => {
    await register({ url: 'https://git.example/org/mono' });
    expect((await register({ url: 'https://git.example/org/mono', branch: 'release' })).status).to.equal(201);
    expect((await register({ url: 'https://git.example/org/mono', subPath: 'services/api' })).status).to.equal(201);
  });

  it('[S1.7-04] names the existing target only when the caller sees it', async () => {
    const project = await v.request('POST', '/projects', { token: admin, body: { name: 'Payments' } });
    const team = await v.request('POST', '/teams', { token: admin, body: { name: 'payments' } });
    const writer = await v.account(['writer']);
    await v.request('POST', `/teams/${team.body.id}/members`, { token: admin, body: { accountId: writer.id } });
    await v.request('POST', `/teams/${team.body.id}/grants`, { token: admin, body: { kind: 'project', id: project.body.id } });
    await register({ url: 'https://git.example/secret/hidden' });
    const r = await register({ url: 'https://git.example/secret/hidden.git', projectId: project.body.id }, writer.token);
    expect(r.status).to.equal(409);
    expect(r.body.type).to.equal('urn:vigil:problem:target-already-registered');
    expect(r.body).not.to.have.property('existingRepositoryId');
    expect(r.body.detail).not.to.match(/\d/);
  });

  it('registers exactly one target when two requests race for the same key', async () => {
    const results = await Promise.all(Array.from({ length: 4 }, () => register({ url: 'https://git.example/race/once' })));
    expect(results.filter((r) => r.status === 201)).to.have.length(1);
    expect(results.filter((r) => r.status === 409)).to.have.length(3);
  });

  describe('schedule (§2.1 table)', () => {
    it('[S1.2.1-02] [S1.2.1-25] [S1.2.1-11] manual-only clears interval and cron; mode manual, intervalMinutes null', async () => {
      const r = await register({ url: 'https://git.example/s/one', scanIntervalMinutes: 60 });
      const patched = await v.request('PATCH', `/repositories/${r.body.id}`, { token: admin, body: { scanManualOnly: true } });
      expect(patched.status).to.equal(200);
      expect(patched.body).to.include({ scanManualOnly: true, scanIntervalMinutes: null, scanCron: null });
      expect(patched.body.schedule).to.deep.equal({ mode: 'manual', intervalMinutes: null });
    });

    it('[S1.2.1-03] [S1.2.1-04] refuses manual-only with a positive interval or a cron expression (400), on create and update, writing nothing', async () => {
      const before = await v.eventCount();
      expect((await register({ url: 'https://git.example/s/two', scanManualOnly: true, scanIntervalMinutes: 30 })).status).to.equal(400);
      expect((await register({ url: 'https://git.example/s/two', scanManualOnly: true, scanCron: '0 3 * * *' })).status).to.equal(400);
      const ok = await register({ url: 'https://git.example/s/two' });
      const after = await v.eventCount();
      expect(after).to.be.greaterThan(before);
      expect((await v.request('PATCH', `/repositories/${ok.body.id}`, { token: admin, body: { scanManualOnly: true, scanIntervalMinutes: 5 } })).status).to.equal(400);
      expect((await v.request('PATCH', `/repositories/${ok.body.id}`, { token: admin, body: { scanManualOnly: true, scanCron: '0 3 * * *' } })).status).to.equal(400);
      expect(await v.eventCount()).to.equal(after);
    });

    it('[S1.2.1-05] naming an interval on a manual-only target without scanManualOnly leaves manual-only', async () => {
      const r = await register({ url: 'https://git.example/s/three', scanManualOnly: true });
      const patched = await v.request('PATCH', `/repositories/${r.body.id}`, { token: admin, body: { scanIntervalMinutes: 120 } });
      expect(patched.body).to.include({ scanManualOnly: false, scanIntervalMinutes: 120 });
      expect(patched.body.schedule).to.deep.equal({ mode: 'interval', intervalMinutes: 120 });
    });

    it('[S1.2.1-06] [S1.2.1-28] interval 0 reads back null and the default applies', async () => {
      const r = await register({ url: 'https://git.example/s/four', scanIntervalMinutes: 0 });
      expect(r.body.scanIntervalMinutes).to.equal(null);
      expect(r.body.schedule).to.deep.equal({ mode: 'default', intervalMinutes: 10080 });
    });

    it('[S1.2.1-07] refuses a negative interval with 400', async () => {
      const r = await register({ url: 'https://git.example/s/five', scanIntervalMinutes: -1 });
      expect(r.status).to.equal(400);
      expect(r.headers.get('content-type')).to.match(/problem\+json/);
    });

    it('[S1.2.1-26] [S1.2.1-10] a cron expression wins over an own interval; intervalMinutes null', async () => {
      const r = await register({ url: 'https://git.example/s/six', scanIntervalMinutes: 60 });
      const patched = await v.request('PATCH', `/repositories/${r.body.id}`, { token: admin, body: { scanCron: '15 2 * * 1' } });
      expect(patched.body.schedule).to.deep.equal({ mode: 'cron', intervalMinutes: null });
      expect(patched.body.scanIntervalMinutes).to.equal(60);
    });

    it('refuses a malformed cron expression with 400 saying why', async () => {
      const r = await register({ url: 'https://git.example/s/seven', scanCron: 'every tuesday' });
      expect(r.status).to.equal(400);
      expect(r.body.detail).to.be.a('string').and.not.empty;
    });

    it('[S1.2.1-08] refuses schedule in a body: it is read-only', async () => {
      const r = await register({ url: 'https://git.example/s/eight', schedule: { mode: 'manual' } });
      expect(r.status).to.equal(400);
    });

    it('[S1.2.1-29] [S1.2.1-12] [S1.2.1-30] scan_default_interval_days defaults to 7; 0 leaves default-mode targets without interval', async () => {
      const settings = await v.request('GET', '/settings', { token: admin });
      expect(settings.body.scan_default_interval_days).to.equal(7);
      const r = await register({ url: 'https://git.example/s/nine' });
      expect((await v.request('PATCH', '/settings', { token: admin, body: { scan_default_interval_days: 0 } })).status).to.equal(200);
      const read = await v.request('GET', `/repositories/${r.body.id}`, { token: admin });
      expect(read.body.schedule).to.deep.equal({ mode: 'default', intervalMinutes: null });
      await v.request('PATCH', '/settings', { token: admin, body: { scan_default_interval_days: 7 } });
    });
  });

  describe('container images', () => {
    it('[S1.4.2-01] registers, reads, patches and deletes an image', async () => {
      const r = await v.request('POST', '/containers', { token: admin, body: { image: 'registry.example/team/app:1.2.3' } });
      expect(r.status).to.equal(201);
      expect(r.body).to.include({ image: 'registry.example/team/app:1.2.3', scanManualOnly: false });
      const p = await v.request('PATCH', `/containers/${r.body.id}`, { token: admin, body: { name: 'App' } });
      expect(p.body).to.include({ name: 'App', image: 'registry.example/team/app:1.2.3' });
      expect((await v.request('DELETE', `/containers/${r.body.id}`, { token: admin })).status).to.equal(204);
      expect((await v.request('GET', `/containers/${r.body.id}`, { token: admin })).status).to.equal(404);
    });

    it('refuses a malformed image reference with 400', async () => {
      const r = await v.request('POST', '/containers', { token: admin, body: { image: 'Not An Image!!' } });
      expect(r.status).to.equal(400);
    });
  });

  describe('PATCH and DELETE', () => {
    it('[S1.4.2-03] PATCH is partial: unnamed fields stay', async () => {
      const r = await register({ url: 'https://git.example/p/one', name: 'One', scanIntervalMinutes: 90 });
      const p = await v.request('PATCH', `/repositories/${r.body.id}`, { token: admin, body: { name: 'Uno' } });
      expect(p.body).to.include({ name: 'Uno', scanIntervalMinutes: 90, url: 'https://git.example/p/one' });
      expect(Object.keys(p.body).sort()).to.deep.equal(Object.keys(r.body).sort());
    });

    it('[S1.7-03] a PATCH moving a repository onto a registered triple answers 409 target-already-registered', async () => {
      const a = await register({ url: 'https://git.example/p/a' });
      const b = await register({ url: 'https://git.example/p/b' });
      const r = await v.request('PATCH', `/repositories/${b.body.id}`, { token: admin, body: { url: 'https://git.example/P/A.git' } });
      expect(r.status).to.equal(409);
      expect(r.body.existingRepositoryId).to.equal(a.body.id);
    });

    it('frees the key on delete, so the repository can be registered again', async () => {
      const a = await register({ url: 'https://git.example/p/again' });
      expect((await v.request('DELETE', `/repositories/${a.body.id}`, { token: admin })).status).to.equal(204);
      expect((await register({ url: 'https://git.example/p/again' })).status).to.equal(201);
    });

    it('[S1.2.4-05] deleting a target revokes every key restricted to it', async () => {
      const a = await register({ url: 'https://git.example/p/keyed' });
      const { key } = await v.key(admin, { name: 'restricted', scopes: ['read'], repositoryId: a.body.id });
      expect((await v.request('GET', `/repositories/${a.body.id}`, { apiKey: key })).status).to.equal(200);
      await v.request('DELETE', `/repositories/${a.body.id}`, { token: admin });
      expect((await v.request('GET', '/me', { apiKey: key })).status).to.equal(401);
    });
  });

  describe('visibility', () => {
    let writer: { id: number; token: string };
    let granted: number;
    let hidden: number;

    before(async () => {
      const project = await v.request('POST', '/projects', { token: admin, body: { name: 'Visible' } });
      const team = await v.request('POST', '/teams', { token: admin, body: { name: 'visible-team' } });
      writer = await v.account(['writer']);
      await v.request('POST', `/teams/${team.body.id}/members`, { token: admin, body: { accountId: writer.id } });
      await v.request('POST', `/teams/${team.body.id}/grants`, { token: admin, body: { kind: 'project', id: project.body.id } });
      granted = (await register({ url: 'https://git.example/v/granted', projectId: project.body.id })).body.id;
      hidden = (await register({ url: 'https://git.example/v/hidden' })).body.id;
    });

    it('[S1.7-13] a target outside the caller\'s view answers 404 exactly as an unknown one', async () => {
      const unseen = await v.request('GET', `/repositories/${hidden}`, { token: writer.token });
      const unknown = await v.request('GET', '/repositories/999999', { token: writer.token });
      expect(unseen.status).to.equal(404);
      expect(unknown.status).to.equal(404);
      expect(unseen.body.title).to.equal(unknown.body.title);
      expect(unseen.body.detail.replace(String(hidden), 'N')).to.equal(unknown.body.detail.replace('999999', 'N'));
    });

    it('lists only what the caller sees; administrators see everything', async () => {
      const mine = await v.request('GET', '/repositories', { token: writer.token });
      expect(mine.body.map((r: { id: number }) => r.id)).to.deep.equal([granted]);
      const all = await v.request('GET', '/repositories?limit=500', { token: admin });
      expect(all.body.map((r: { id: number }) => r.id)).to.include.members([granted, hidden]);
    });

    it('[S1.2.4-03] [S1.2.4-04] a restricted key sees only its target, never more than its account', async () => {
      const other = (await register({ url: 'https://git.example/v/other' })).body.id;
      const { key } = await v.key(admin, { name: 'one repo', scopes: ['read'], repositoryId: granted });
      expect((await v.request('GET', `/repositories/${granted}`, { apiKey: key })).status).to.equal(200);
      expect((await v.request('GET', `/repositories/${other}`, { apiKey: key })).status).to.equal(404);
      expect((await v.request('GET', '/repositories', { apiKey: key })).body.map((r: { id: number }) => r.id)).to.deep.equal([granted]);
      const refused = await v.request('POST', '/api-keys', { token: writer.token, body: { name: 'widen', scopes: ['read'], repositoryId: hidden } });
      expect(refused.status).to.equal(404);
    });

    it('refuses a writer registering outside a granted project (403) and a reader registering at all', async () => {
      expect((await register({ url: 'https://git.example/v/nowhere' }, writer.token)).status).to.equal(403);
      const reader = await v.account(['reader']);
      expect((await register({ url: 'https://git.example/v/reader' }, reader.token)).status).to.equal(403);
    });

    it('[S1.4.2-04] [S1.4.2-05] duplicates are for administrators, grouped by identity, oldest first', async () => {
      expect((await v.request('GET', '/repositories/duplicates', { token: writer.token })).status).to.equal(403);
      const r = await v.request('GET', '/repositories/duplicates', { token: admin });
      expect(r.status).to.equal(200);
      const mono = r.body.find((g: { identity: string }) => g.identity === 'git.example/org/mono');
      expect(mono.repositories).to.have.length(3);
      const times = mono.repositories.map((x: { createdAt: string }) => x.createdAt);
      expect(times).to.deep.equal([...times].sort());
    });

    it('[S1.2.1-23] [S1.2.1-24] [S1.4.2-06] GET /solutions gives each project detectedLanguages and languagesUnknownFor over visible repositories', async () => {
      const solution = await v.request('POST', '/solutions', { token: admin, body: { name: 'Retail' } });
      const project = await v.request('POST', '/projects', { token: admin, body: { name: 'Shop', solutionId: solution.body.id } });
      const repo = await register({ url: 'https://git.example/retail/shop', projectId: project.body.id });
      const r = await v.request('GET', '/solutions', { token: admin });
      const retail = r.body.find((s: { id: number }) => s.id === solution.body.id);
      expect(retail.projects).to.deep.equal([{ id: project.body.id, name: 'Shop', detectedLanguages: [], languagesUnknownFor: [repo.body.id] }]);
    });
  });

  it('paginates lists with limit and a Link rel="next" header', async () => {
    const first = await v.request('GET', '/repositories?limit=2', { token: admin });
    expect(first.body).to.have.length(2);
    const link = first.headers.get('link')!;
    expect(link).to.match(/rel="next"/);
    const next = await v.request('GET', link.match(/<([^>]+)>/)![1], { token: admin });
    expect(next.body[0].id).to.be.greaterThan(first.body[1].id);
  });
});
