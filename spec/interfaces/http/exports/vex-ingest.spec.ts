import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { streams } from '../../../../domain/shared/streams';
import { triageDecider } from '../../../../domain/triage/decider';
import { seedFindings } from '../../../support/backlog';
import { requireCorpus } from '../../../support/corpus';
import { RunningVigil, startVigil } from '../../../support/vigil';
import { buildWorld, ExportWorld, SITUATIONS } from './world';

/** A repository of the second installation holding the same vulnerabilities on the same components, all under review. */
async function receivingRepository(v: RunningVigil, admin: string, name: string): Promise<number> {
  const repo = (await v.request('POST', '/repositories', { token: admin, body: { url: `https://git.example/supplier/${name}` } })).body.id;
  for (const s of SITUATIONS) {
    await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId: s.cve, identifier: s.cve, path: s.purl }], { toolKey: `scanner:b-${s.name}` });
  }
  return repo;
}

/** The VEX reading of each (vulnerability, purl) in a CycloneDX VEX export. */
async function readings(v: RunningVigil, token: string, repo: number): Promise<Record<string, string>> {
  const bom = (await v.request('GET', `/repositories/${repo}/exports/cyclonedx-vex`, { token })).body;
  return Object.fromEntries(bom.vulnerabilities.map((x: any) => [`${x.id} ${x.affects[0].ref.split(':').slice(1).join(':')}`, [x.analysis.state, x.analysis.justification, ...(x.analysis.response ?? [])].filter(Boolean).join(' ')]));
}

describe('POST /vex/ingest (issue #11, spec 1 §8.1) @db', function () {
  this.timeout(180_000);
  requireCorpus(this);
  let a: ExportWorld;
  /** The second installation: each test ingests into a repository of its own (repository_id narrows the matching). */
  let b: { v: RunningVigil; admin: string };
  before(async () => {
    a = await buildWorld();
    const v = await startVigil({ env: { ENCRYPTION_KEY: randomBytes(32).toString('base64'), VIGIL_MAX_BODY_VEX_INGEST: '64KB' } });
    b = { v, admin: await v.signIn() };
  });
  after(async () => { await a?.v.stop(); await b?.v.stop(); });

  for (const format of ['openvex', 'cyclonedx-vex', 'csaf-vex']) {
    it(`round trip through ${format}: exported by one Vigil, ingested into a second, the second reads the same VEX statuses`, async () => {
      const repo = await receivingRepository(b.v, b.admin, format);
      {
        const document = (await a.v.request('GET', `/repositories/${a.repo}/exports/${format}`, { token: a.admin })).text;
        const answer = await b.v.request('POST', `/vex/ingest?repository_id=${repo}`, { token: b.admin, raw: document, contentType: 'application/json' });
        expect(answer.status, answer.text).to.equal(200);
        expect(answer.body.format).to.equal(format.replace('-vex', ''));
        expect(answer.body.counts.refused ?? 0, JSON.stringify(answer.body.results.filter((r: any) => r.outcome === 'refused'))).to.equal(0);
        expect(await readings(b.v, b.admin, repo)).to.deep.equal(await readings(a.v, a.admin, a.repo).then((r) => Object.fromEntries(Object.entries(r).filter(([k]) => SITUATIONS.some((s) => k === `${s.cve} ${s.purl}`)))));
        const issues = (await b.v.request('GET', `/issues?repository_id=${repo}`, { token: b.admin })).body;
        const byCve = Object.fromEntries(issues.map((i: any) => [i.ruleId, i]));
        expect(byCve['CVE-2024-0006']).to.include({ triageStatus: 'will_not_fix' });
        expect(byCve['CVE-2024-0004']).to.include({ triageStatus: 'not_affected', justification: 'code_not_reachable' });
        const decision = (await b.v.request('GET', `/issues/${byCve['CVE-2024-0002'].id}`, { token: b.admin })).body.history.pop();
        expect(decision).to.include({ type: 'TriageDecided', status: 'affected' });
      }
    });
  }

  it('[S1.8.1-05] dry_run=true reports what would change and writes nothing; four-eyes turns decisions into requests; refusals write nothing', async () => {
    const repo = await receivingRepository(b.v, b.admin, 'dry-run');
    const ingest = (token: string, raw: string | Buffer, query = '') => b.v.request('POST', `/vex/ingest?repository_id=${repo}${query}`, { token, raw, contentType: 'application/json' });
    {
      const document = (await a.v.request('GET', `/repositories/${a.repo}/exports/openvex`, { token: a.admin })).text;
      const before = await b.v.eventCount();
      const dry = await ingest(b.admin, document, '&dry_run=true');
      expect(dry.status).to.equal(200);
      expect(dry.body.dryRun).to.equal(true);
      expect(dry.body.counts.would_decide).to.equal(5);
      expect(dry.body.results.find((r: any) => r.vulnerability === 'CVE-2024-0006')).to.include({ from: 'under_review', to: 'will_not_fix', outcome: 'would_decide' });
      expect(await b.v.eventCount()).to.equal(before);

      const reader = await b.v.account(['reader']);
      const key = await b.v.key(b.admin, { name: 'k', scopes: ['read'] });
      const beforeRefusals = await b.v.eventCount();
      expect((await b.v.request('POST', '/vex/ingest', { token: reader.token, raw: document, contentType: 'application/json' })).status).to.equal(403);
      expect((await b.v.request('POST', '/vex/ingest', { apiKey: key.key, raw: document, contentType: 'application/json' })).status).to.equal(403);
      expect((await b.v.request('POST', '/vex/ingest', { token: b.admin, raw: '{"hello":1}', contentType: 'application/json' })).status).to.equal(400);
      expect((await b.v.request('POST', '/vex/ingest', { token: b.admin, raw: 'not json', contentType: 'application/json' })).status).to.equal(400);
      const big = await b.v.request('POST', '/vex/ingest', { token: b.admin, raw: Buffer.alloc(70 * 1024, 0x20), contentType: 'application/json' });
      expect(big.status).to.equal(413);
      expect(big.body.detail).to.match(/VIGIL_MAX_BODY_VEX_INGEST/);
      expect(await b.v.eventCount()).to.equal(beforeRefusals);

      await b.v.request('PATCH', '/settings', { token: b.admin, body: { triage_four_eyes: true } });
      const requested = await ingest(b.admin, document);
      expect(requested.body.results.find((r: any) => r.vulnerability === 'CVE-2024-0004').outcome).to.equal('requested');
      expect(requested.body.results.find((r: any) => r.vulnerability === 'CVE-2024-0002').outcome).to.equal('decided');
      expect(requested.body.results.find((r: any) => r.vulnerability === 'CVE-2024-0001').outcome).to.equal('nothing_to_decide');
      const unmatched = JSON.stringify({ '@context': 'https://openvex.dev/ns/v0.2.0', '@id': 'urn:x', author: 'x', timestamp: '2026-01-01T00:00:00Z', version: 1,
        statements: [{ vulnerability: { name: 'CVE-2099-0001' }, products: [{ '@id': 'pkg:npm/none@1' }], status: 'fixed' }] });
      const none = await ingest(b.admin, unmatched);
      expect(none.body.results).to.deep.equal([{ vulnerability: 'CVE-2099-0001', purl: 'pkg:npm/none@1', issueId: null, from: null, to: null, outcome: 'unmatched', detail: 'No open issue you see has this vulnerability on this component.' }]);
      expect((await b.v.request('POST', `/vex/ingest?repository_id=${repo}&container_id=1`, { token: b.admin, raw: unmatched, contentType: 'application/json' })).status).to.equal(400);
    }
  });
  it('If-Match semantics: a statement matched on a revision that moved before it is applied is refused issue-changed-meanwhile and writes nothing; read again, it is decided', async () => {
    // A third installation whose read models are held back (projections stopped): the matching reads the issue's
    // revision from the read model, which a decision has meanwhile overtaken in the log.
    const v = await startVigil({ env: { ENCRYPTION_KEY: randomBytes(32).toString('base64'), } });
    try {
      const admin = await v.signIn();
      const repo = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/supplier/if-match' } })).body.id;
      await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId: 'CVE-2024-0002', identifier: 'CVE-2024-0002', path: 'pkg:npm/lodash@4.17.20' }], { toolKey: 'scanner:if-match' });
      const id = (await v.request('GET', `/issues?repository_id=${repo}`, { token: admin })).body[0].id;
      const document = JSON.stringify({ '@context': 'https://openvex.dev/ns/v0.2.0', '@id': 'urn:supplier:1', author: 'Supplier', timestamp: '2026-01-01T00:00:00Z', version: 1,
        statements: [{ vulnerability: { name: 'CVE-2024-0002' }, products: [{ '@id': 'pkg:npm/lodash@4.17.20' }], status: 'not_affected', justification: 'vulnerable_code_not_present' }] });
      await v.services.projections.stop();
      const logged = await v.eventCount();
      // A decision through the one command path, committed without waiting for the read models (as a large ingest does).
      const key = (await v.database.db.knex('issues').where({ id }).first('issue_key')).issue_key;
      await v.services.commands.transact({ actor: null, now: v.services.clock.now() } as never, (attempt) => attempt.decide(streams.issue(key), triageDecider,
        { type: 'Triage', status: 'affected', actor: '1', fourEyes: false, now: v.services.clock.now() }), { wait: false });
      expect(await v.eventCount(), 'the decision is in the log').to.be.above(logged);
      const before = await v.eventCount();
      const stale = await v.request('POST', `/vex/ingest?repository_id=${repo}`, { token: admin, raw: document, contentType: 'application/json' });
      expect(stale.status, stale.text).to.equal(200);
      expect(stale.body.results).to.have.length(1);
      expect(stale.body.results[0]).to.include({ issueId: id, from: 'under_review', to: 'not_affected', outcome: 'refused' });
      expect(stale.body.results[0].detail).to.contain('issue-changed-meanwhile');
      expect(await v.eventCount()).to.equal(before);
      v.services.projections.start();
      for (let i = 0; i < 100 && (await v.request('GET', `/issues/${id}`, { token: admin })).body.triageStatus !== 'affected'; i++) await new Promise((r) => setTimeout(r, 50));
      const fresh = await v.request('POST', `/vex/ingest?repository_id=${repo}`, { token: admin, raw: document, contentType: 'application/json' });
      expect(fresh.body.results[0]).to.include({ issueId: id, from: 'affected', to: 'not_affected', outcome: 'decided' });
    } finally {
      await v.stop();
    }
  });
});
