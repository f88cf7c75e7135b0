import { expect } from 'chai';
import { createTestDatabase, engineAvailable } from '../../support/databases';
import { RunningVigil, startVigil } from '../../support/vigil';
import { FakeExecutor, FakeNormaliser } from './fakes';

const TARGETS = 12;

for (const engine of ['postgres', 'mysql'] as const) {
  describe(`Scans with two instances on one database [${engine}] @db`, function () {
    this.timeout(120_000);
    let a: RunningVigil;
    let b: RunningVigil;
    const executors = { a: new FakeExecutor(), b: new FakeExecutor() };
    let token: string;
    const repos: number[] = [];

    before(async function () {
      if (!(await engineAvailable(engine))) this.skip();
      const database = await createTestDatabase(engine, { migrate: false });
      const env = { VIGIL_SCAN_MAX_CONCURRENT: '4' };
      a = await startVigil({ engine, database, env, overrides: { scanExecutor: executors.a, normaliser: new FakeNormaliser() } });
      b = await startVigil({
        engine, env, database: { ...database, db: database.reopen(), drop: async () => undefined },
        overrides: { scanExecutor: executors.b, normaliser: new FakeNormaliser() },
      });
      token = await a.signIn();
      for (let i = 0; i < TARGETS; i++) {
        const r = await a.request('POST', '/repositories', { token, body: { url: `https://git.example/two/scan-${i}`, scanManualOnly: true } });
        repos.push(r.body.id);
      }
    });
    after(async () => {
      await b?.services.scanScheduler.stop();
      await a?.services.scanScheduler.stop();
      await b?.stop({ keepDatabase: true });
      await a?.stop();
    });

    it('[S1.3.1-02] two requests for one target at once on the two instances: one 200, one 409', async () => {
      const tb = await b.signIn();
      const answers = await Promise.all([
        a.request('POST', `/repositories/${repos[0]}/scan`, { token, body: {} }),
        b.request('POST', `/repositories/${repos[0]}/scan`, { token: tb, body: {} }),
      ]);
      expect(answers.map((r) => r.status).sort()).to.deep.equal([200, 409]);
    });

    it('[S1.3.1-03] [S1.3.1-21] claims racing on both instances never claim one scan twice, and every scan completes once (trap 10)', async () => {
      for (const repo of repos.slice(1)) expect((await a.request('POST', `/repositories/${repo}/scan`, { token, body: {} })).status).to.equal(200);
      const identity = (name: string) => ({ worker: `embedded:${name}`, holdsCredentials: true, labels: [] });
      // Four claimers at once, two per instance, each wanting every scan.
      const claims = await Promise.all([
        a.services.scanLifecycle.claim(identity('a1'), TARGETS), b.services.scanLifecycle.claim(identity('b1'), TARGETS),
        a.services.scanLifecycle.claim(identity('a2'), TARGETS), b.services.scanLifecycle.claim(identity('b2'), TARGETS),
      ]);
      const claimed = claims.flat().map((c) => c.scanId);
      expect(new Set(claimed).size, 'no scan claimed twice').to.equal(claimed.length);
      expect(claimed).to.have.length(TARGETS);
      const knex = a.database.db.knex;
      const perStream: Array<{ stream_id: string; n: number }> = await knex('events').where('type', 'ScanClaimed').groupBy('stream_id').select('stream_id').count({ n: '*' });
      expect(perStream).to.have.length(TARGETS);
      expect(perStream.every((r) => Number(r.n) === 1)).to.equal(true);
      for (const c of claims.flat()) {
        const via = c.worker.startsWith('embedded:a') ? a : b;
        expect(await via.services.scanLifecycle.complete(c, { artifacts: {}, languages: [], languagesBounded: false, duration: 'PT1S' })).to.equal('completed');
      }
      const statuses: Array<{ status: string; n: number }> = await knex('scans').select('status').count({ n: '*' }).groupBy('status');
      expect(statuses.map((s) => [s.status, Number(s.n)])).to.deep.equal([['completed', TARGETS]]);
    });

    it('[S1.3.1-21] the two built-in workers together run each waiting scan exactly once', async () => {
      for (const repo of repos) expect((await a.request('POST', `/repositories/${repo}/scan`, { token, body: {} })).status).to.equal(200);
      for (let round = 0; round < 10; round++) {
        const outcomes = await Promise.all([a.services.scanWorker.runOnce(), b.services.scanWorker.runOnce()]);
        if (outcomes.flat().length === 0) break;
      }
      const jobs = [...executors.a.jobs, ...executors.b.jobs].map((j) => j.scanId);
      expect(new Set(jobs).size).to.equal(jobs.length);
      expect(jobs).to.have.length(TARGETS);
      expect(executors.a.jobs.length, 'both instances took part').to.be.greaterThan(0);
      expect(executors.b.jobs.length, 'both instances took part').to.be.greaterThan(0);
      const knex = a.database.db.knex;
      expect(Number((await knex('scans').where('status', 'completed').count({ n: '*' }).first())!.n)).to.equal(2 * TARGETS);
    });

    it('[S1.2.1-32] one scheduler runs the rounds at a time; the other takes over when it stops', async () => {
      expect((await a.services.scanScheduler.runOnce()).ran).to.equal(true);
      expect((await b.services.scanScheduler.runOnce()).ran).to.equal(false);
      expect((await a.services.scanScheduler.runOnce()).ran, 'the holder keeps it').to.equal(true);
      await a.services.scanScheduler.stop();
      expect((await b.services.scanScheduler.runOnce()).ran).to.equal(true);
      expect((await a.services.scanScheduler.runOnce()).ran).to.equal(false);
    });
  });
}
