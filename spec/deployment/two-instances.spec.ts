import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { ManualClock } from '../../application/ports/clock';
import { allProjections } from '../../projections';
import { ProjectionRunner } from '../../projections/engine/projection-runner';
import { skipOrFail } from '../infrastructure/scanning/support';
import { createTestDatabase, engineAvailable, TestDatabase } from '../support/databases';
import { RunningVigil, startVigil } from '../support/vigil';

/** Read models compared between the two instances' live build and one replay of the log. */
const TABLES = ['repositories', 'issues', 'sarif_sources', 'sarif_imports', 'gate_verdicts', 'scans', 'audit_log', 'accounts', 'api_keys'];

async function digest(db: TestDatabase): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of TABLES) {
    const rows = await db.db.knex(table).select('*');
    const lines = rows.map((r) => JSON.stringify(Object.keys(r).sort().map((k) => [k, r[k] instanceof Date ? r[k].toISOString() : r[k]]))).sort();
    out[table] = `${rows.length}:${createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16)}`;
  }
  return out;
}

/**
 * Issue #15: two Vigil instances on one PostgreSQL (behind a balancer), under SARIF imports and gate
 * calls spread over both. Projections take each event once (checkpoint rows locked per batch), the
 * scheduler runs on one instance at a time (its lease), and both instances answer from the same,
 * converged read models, equal to a replay of the log by one runner.
 */
describe('two instances on one PostgreSQL @db', function () {
  this.timeout(180_000);
  let database: TestDatabase;
  let a: RunningVigil;
  let b: RunningVigil;
  const clock = new ManualClock(new Date());

  before(async function () {
    if (!(await engineAvailable('postgres'))) skipOrFail(this, 'postgres', 'PostgreSQL is not reachable on 127.0.0.1:5432', process.env.CI === 'true', 'CI requires it');
    database = await createTestDatabase('postgres', { migrate: false });
    // One clock for both, moved past the targets' scan interval before the scheduler's rounds.
    [a, b] = [await startVigil({ engine: 'postgres', database, clock }), await startVigil({ engine: 'postgres', database, clock })];
  });
  after(async () => {
    await a?.stop({ keepDatabase: true });
    await b?.stop({ keepDatabase: true });
    await database?.drop();
  });

  it('[#15] under import and gate load on both, no projection applies an event twice, the scheduler runs on one, and the read models converge', async () => {
    const admin = await a.signIn();
    const adminOnB = await b.signIn();
    const governor = await a.account(['platform_governor']);
    const gateKey = await a.key(admin, { name: 'gate', scopes: ['scan'] });
    const repos: number[] = [];
    const importKeys: string[] = [];
    for (let i = 0; i < 6; i++) {
      const via = i % 2 ? b : a;
      const r = await via.request('POST', '/repositories', { token: i % 2 ? adminOnB : admin, body: { url: `https://git.example/two/r${i}`, scanIntervalMinutes: 60 } });
      expect(r.status, r.text).to.equal(201);
      repos.push(r.body.id);
      const key = await a.key(admin, { name: `import ${i}`, scopes: ['sarif_import'] });
      importKeys.push(key.key);
      const s = await via.request('POST', '/sarif-sources', { token: governor.token, body: { slug: `s${i}`, name: 'CI', api_key_id: key.id, repository_id: r.body.id, kinds: ['sarif'], tools: ['Tool'] } });
      expect(s.status, s.text).to.equal(201);
    }
    const sarif = (n: number, round: number) => JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name: 'Tool' } }, results: Array.from({ length: n }, (_, k) => ({
      ruleId: `R${(k + round) % 40}`, level: k % 3 ? 'warning' : 'error', message: { text: `finding ${k}` }, locations: [{ physicalLocation: { artifactLocation: { uri: `src/f${k}.ts` }, region: { startLine: k + 1 } } }],
    })) }] });

    clock.advance(61 * 60_000);
    // Load: three rounds; in each, every repository gets an import and two gate calls, spread over both instances at once.
    let gates = 0;
    const holders = new Set<number>();
    for (let round = 0; round < 3; round++) {
      const calls: Array<Promise<unknown>> = [];
      repos.forEach((id, i) => {
        const [first, second] = i % 2 ? [b, a] : [a, b];
        calls.push(first.request('POST', `/repositories/${id}/sarif-imports`, { apiKey: importKeys[i], raw: sarif(30, round), contentType: 'application/sarif+json' })
          .then((r) => expect(r.status, r.text).to.equal(201)));
        for (const via of [first, second]) {
          gates++;
          calls.push(via.request('POST', '/gate', { apiKey: gateKey.key, body: { repositoryId: id } }).then((r) => expect(r.status, r.text).to.equal(200)));
        }
      });
      // The scheduler's rounds, on both instances at the same moment.
      calls.push(Promise.all([a.services.scanScheduler.runOnce(), b.services.scanScheduler.runOnce()]).then((reports) => {
        expect(reports.filter((r) => r.ran), 'rounds run in one pass').to.have.length(1);
        holders.add(reports.findIndex((r) => r.ran));
      }));
      await Promise.all(calls);
    }

    expect(holders.size, 'the instance holding the lease keeps the rounds').to.equal(1);
    // Each repository was requested once by the scheduler, however many rounds both instances ran.
    const scheduled = await database.db.knex('events').where({ type: 'ScanRequested' }).select('data');
    const byTarget = new Map<number, number>();
    for (const row of scheduled) {
      const data = typeof row.data === 'string' ? JSON.parse(row.data) : row.data;
      if (data.trigger === 'schedule') byTarget.set(data.targetId, (byTarget.get(data.targetId) ?? 0) + 1);
    }
    expect([...byTarget.values()].every((n) => n === 1), JSON.stringify([...byTarget])).to.equal(true);
    expect(byTarget.size).to.equal(repos.length);

    // Converged: the shared checkpoints reach the head, both instances answer the same.
    const caughtUp = async (v: RunningVigil) => (await v.services.projections.status()).every((s) => s.lagEvents === 0 && s.failures.count === 0);
    for (let end = Date.now() + 60_000; !(await caughtUp(a)) && Date.now() < end;) await new Promise((r) => setTimeout(r, 100));
    for (const v of [a, b]) expect(await caughtUp(v)).to.equal(true);
    // Fresh sessions: the clock moved past the idle limit of the first ones.
    const [onA, onB] = [await a.signIn(), await b.signIn()];
    const issuesA = await a.request('GET', '/issues?limit=200', { token: onA });
    const issuesB = await b.request('GET', '/issues?limit=200', { token: onB });
    expect(issuesA.body.length).to.be.greaterThan(0);
    expect(issuesB.body).to.deep.equal(issuesA.body);
    const verdicts = Number((await database.db.knex('gate_verdicts').count({ n: '*' }).first())!.n);
    expect(verdicts).to.equal(gates);
    const chain = await b.request('GET', '/audit-log/verification', { token: onB });
    expect(chain.body.valid, JSON.stringify(chain.body)).to.equal(true);

    // Each event applied once: the live build equals one runner's replay of the whole log.
    const live = await digest(database);
    await a.services.projections.stop();
    await b.services.projections.stop();
    await new ProjectionRunner(database.db, a.services.store as never, allProjections).rebuild();
    expect(await digest(database)).to.deep.equal(live);
  });
});
