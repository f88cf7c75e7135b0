import { expect } from 'chai';
import { seedFindings } from '../../support/backlog';
import { corpusAvailable, corpusDir } from '../../support/corpus';
import { createTestDatabase, describeEachEngine, engineAvailable } from '../../support/databases';
import { RunningVigil, startVigil } from '../../support/vigil';
import { epssCsv, excerptRow, gz, KEV_NEW, KEV_OLD, Mirror } from '../../infrastructure/enrichment/mirror';

const env = (mirror: Mirror) => ({
  VIGIL_KEV_URL: mirror.url('/kev.json'), VIGIL_EPSS_URL: mirror.url('/epss.csv.gz'), VIGIL_KEV_ALLOW_PRIVATE: 'true', VIGIL_EPSS_ALLOW_PRIVATE: 'true',
});
/** Without the fixture corpus: skipped with a message, except under CI (as requireCorpus). */
function needCorpus(ctx: Mocha.Context): void {
  if (corpusAvailable()) return;
  if (process.env.CI === 'true') throw new Error(`The fixture corpus is missing at ${corpusDir}; CI requires it.`);
  ctx.skip();
}
const NEWLY = 'CVE-2025-48384'; // in the 2025.08.25 catalogue, not in 2025.01.24
const OLD = 'CVE-2025-23006'; // in both
const [SCORED, SCORE] = excerptRow(5);

async function kevOf(v: RunningVigil, identifier: string): Promise<{ kev: unknown; epss: unknown }> {
  const row = await v.database.db.knex('issues').where({ identifier }).first();
  return { kev: row.kev === null ? null : Boolean(row.kev), epss: row.epss === null ? null : Number(row.epss) };
}

describeEachEngine('Enrichment feeds: migration, projection and score table', ({ engine, get }) => {
  let mirror: Mirror;
  before(async function () {
    needCorpus(this);
    mirror = await new Mirror().start();
  });
  after(async () => { await mirror?.stop(); });

  it('[S1.1-09] [S1.1-08] unknown before, KEV and EPSS values after, identical after a rebuild', async function () {
    this.timeout(120_000);
    const v = await startVigil({ engine, database: { ...get(), drop: async () => undefined }, env: env(mirror) });
    try {
      const admin = await v.signIn();
      const repo = (await v.request('POST', '/repositories', { token: admin, body: { url: `https://git.example/engines/${engine}` } })).body.id;
      await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId: OLD }, { ruleId: NEWLY }, { ruleId: SCORED }]);
      expect(await kevOf(v, OLD)).to.deep.equal({ kev: null, epss: null });
      mirror.serve('/kev.json', { body: KEV_OLD() }).serve('/epss.csv.gz', { body: gz(epssCsv({ rows: 100_000 })) });
      expect((await v.services.feeds.sync(null)).map((o) => o.outcome)).to.deep.equal(['accepted', 'accepted']);
      expect(await kevOf(v, OLD)).to.deep.equal({ kev: true, epss: null });
      expect(await kevOf(v, NEWLY)).to.deep.equal({ kev: false, epss: null });
      expect(await kevOf(v, SCORED)).to.deep.equal({ kev: false, epss: SCORE });
      mirror.serve('/kev.json', { body: KEV_NEW() });
      const [kev] = await v.services.feeds.sync(null, ['kev']);
      expect(kev).to.include({ outcome: 'accepted', signalled: 1 });
      expect(await kevOf(v, NEWLY)).to.deep.equal({ kev: true, epss: null });

      const k = v.database.db.knex;
      const snapshot = async () => JSON.stringify([
        (await k('issues').select('id', 'kev', 'epss').orderBy('id')).map((r: Record<string, unknown>) => [r.id, r.kev === null ? null : Number(r.kev), r.epss === null ? null : Number(r.epss)]),
        await k('kev_catalogue').count({ n: '*' }), await k('feed_state').select('feed', 'version', 'count', 'stream_revision').orderBy('feed'), await k('kev_listed').select('issue_id').orderBy('issue_id'),
      ]);
      const before = await snapshot();
      await v.services.projections.stop();
      await v.services.projections.rebuild();
      expect(await snapshot()).to.equal(before);
    } finally {
      await v.stop({ keepDatabase: true });
    }
  });
});

for (const engine of ['postgres', 'mysql'] as const) {
  describe(`Enrichment feeds: two instances synchronising at once [${engine}] @db`, function () {
    this.timeout(120_000);
    it('[S1.8.3-50] [S2.6-30] accept each feed once, signal each issue once and keep one score generation', async function () {
      if (!(await engineAvailable(engine))) this.skip();
      needCorpus(this);
      const mirror = await new Mirror().start();
      mirror.serve('/kev.json', { body: KEV_NEW() }).serve('/epss.csv.gz', { body: gz(epssCsv({ rows: 100_000 })) });
      const database = await createTestDatabase(engine, { migrate: false });
      const a = await startVigil({ engine, database, env: env(mirror) });
      const b = await startVigil({ engine, database: { ...database, db: database.reopen(), drop: async () => undefined }, env: env(mirror) });
      try {
        const admin = await a.signIn();
        const repo = (await a.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/engines/two' } })).body.id;
        await seedFindings(a, { kind: 'repository', id: repo }, [{ ruleId: NEWLY }, { ruleId: OLD }, { ruleId: SCORED }]);
        const [ra, rb] = await Promise.all([a.services.feeds.sync(null), b.services.feeds.sync(null)]);
        for (const feed of [0, 1]) {
          expect([ra[feed].outcome, rb[feed].outcome].sort(), ra[feed].feed).to.deep.equal(['accepted', 'unchanged']);
        }
        expect((ra[0].signalled ?? 0) + (rb[0].signalled ?? 0)).to.equal(2);
        const k = database.db.knex;
        expect(Number((await k('events').where('type', 'KevCatalogueSynchronised').count({ n: '*' }).first())!.n)).to.equal(1);
        expect(Number((await k('events').where('type', 'IssueKevListed').count({ n: '*' }).first())!.n)).to.equal(2);
        expect(await k('epss_scores').distinct('generation')).to.have.length(1);
        expect(await kevOf(a, SCORED)).to.deep.equal({ kev: false, epss: SCORE });
      } finally {
        await b.stop({ keepDatabase: true });
        await a.stop();
        await mirror.stop();
      }
    });
  });
}
