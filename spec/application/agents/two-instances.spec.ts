import { expect } from 'chai';
import { ControlPlaneClient } from '../../../interfaces/cli/agent/client';
import { createTestDatabase, engineAvailable } from '../../support/databases';
import { RunningVigil, startVigil } from '../../support/vigil';
import { FakeNormaliser } from '../scans/fakes';

const SCANS = 10;
const LIMIT = 3;

for (const engine of ['postgres', 'mysql'] as const) {
  describe(`An agent polling two control-plane instances on one database [${engine}] @db`, function () {
    this.timeout(120_000);
    let a: RunningVigil;
    let b: RunningVigil;
    let token: string;

    before(async function () {
      if (!(await engineAvailable(engine))) this.skip();
      const database = await createTestDatabase(engine, { migrate: false });
      const env = { VIGIL_EMBEDDED_WORKER: 'false' };
      a = await startVigil({ engine, database, env, overrides: { scanExecutor: null, normaliser: new FakeNormaliser() } });
      b = await startVigil({ engine, env, database: { ...database, db: database.reopen(), drop: async () => undefined }, overrides: { scanExecutor: null, normaliser: new FakeNormaliser() } });
      token = await a.signIn();
    });
    after(async () => {
      await b?.stop({ keepDatabase: true });
      await a?.stop();
    });

    it('[S1.4.7-15] [S1.4.7-19] processes sharing one agent key through both instances never hold more than max_concurrent, nor one scan twice', async () => {
      const key = await a.key(token, { name: 'shared-agent', scopes: ['agent'] });
      const viaA = new ControlPlaneClient(a.url, key.key, null);
      const viaB = new ControlPlaneClient(b.url, key.key, null);
      await viaA.hello({ version: '0.11.0', mode: 'local', labels: [] });
      await viaB.hello({ version: '0.11.0', mode: 'local', labels: [] });
      expect((await a.request('PATCH', `/admin/agents/${viaA.agentId}`, { token, body: { max_concurrent: LIMIT } })).status).to.equal(200);
      for (let i = 0; i < SCANS; i++) {
        const repo = (await a.request('POST', '/repositories', { token, body: { url: `https://git.example/agents-two/r${i}`, scanManualOnly: true } })).body.id;
        expect((await a.request('POST', `/repositories/${repo}/scan`, { token, body: {} })).status).to.equal(200);
      }
      const seen = new Set<number>();
      let reported = 0;
      while (reported < SCANS) {
        // Four processes of one agent ask at once, two through each instance, each as if it had every slot free.
        const answers = await Promise.all([viaA.poll(0, LIMIT), viaB.poll(0, LIMIT), viaA.poll(0, LIMIT), viaB.poll(0, LIMIT)]);
        const jobs = answers.flatMap((r) => r.body.jobs as Array<{ id: number; attempt: number }>);
        const held = await a.database.db.knex('scan_leases').where({ worker: `agent:${viaA.agentId}` }).count({ n: '*' }).first();
        expect(Number(held!.n), 'claimed, unreported scans of the agent').to.be.at.most(LIMIT);
        for (const job of jobs) {
          expect(seen.has(job.id), `scan ${job.id} claimed twice`).to.equal(false);
          seen.add(job.id);
        }
        expect(jobs.length).to.be.greaterThan(0);
        for (const job of jobs) {
          const r = await viaA.result(job.id, job.attempt, { artifacts: {}, languages: null, duration: 'PT1S' });
          expect(r.status, JSON.stringify(r.body)).to.equal(200);
          reported++;
        }
      }
      expect(seen.size).to.equal(SCANS);
    });
  });
}
