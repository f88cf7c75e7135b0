import { expect } from 'chai';
import { createTestDatabase, engineAvailable } from '../support/databases';
import { startVigil } from '../support/vigil';

for (const engine of ['postgres', 'mysql'] as const) {
  describe(`Two instances on one database [${engine}] @db`, function () {
    it('project every event exactly once and read each other\'s writes (traps 2, 3, 10)', async function () {
      if (!(await engineAvailable(engine))) this.skip();
      const database = await createTestDatabase(engine, { migrate: false });
      const a = await startVigil({ engine, database });
      const b = await startVigil({ engine, database: { ...database, db: database.reopen(), drop: async () => undefined } });
      try {
        const [ta, tb] = [await a.signIn(), await b.signIn()];
        const writes = [];
        for (let i = 0; i < 20; i++) {
          const [via, token] = i % 2 ? [a, ta] : [b, tb];
          writes.push(via.request('POST', '/repositories', { token, body: { url: `https://git.example/two/${i}` } }));
        }
        const created = await Promise.all(writes);
        expect(created.every((r) => r.status === 201)).to.equal(true);
        // Read-your-writes across instances: a 2xx on one is visible on the other at once.
        const posted = await a.request('POST', '/containers', { token: ta, body: { image: 'registry.example/two/instances:1' } });
        expect((await b.request('GET', `/containers/${posted.body.id}`, { token: tb })).status).to.equal(200);

        const events = Number((await database.db.knex('events').count({ n: '*' }).first())!.n);
        await a.services.projections.waitFor(await a.services.store.head(), ['RepositoryRegistered'], 5000);
        await new Promise((r) => setTimeout(r, 300));
        const audit = await database.db.knex('audit_log').select('event_id');
        expect(audit).to.have.length(events);
        expect(new Set(audit.map((r: { event_id: string }) => r.event_id)).size).to.equal(events);
        expect(Number((await database.db.knex('repositories').count({ n: '*' }).first())!.n)).to.equal(20);
      } finally {
        await b.stop({ keepDatabase: true });
        await a.stop();
      }
    });
  });
}
