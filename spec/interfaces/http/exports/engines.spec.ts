import { expect } from 'chai';
import { createHash } from 'node:crypto';
import unzipper from 'unzipper';
import { engineAvailable, TestEngine } from '../../../support/databases';
import { requireCorpus } from '../../../support/corpus';
import { expectValid } from '../../../support/export-schemas';
import { buildWorld, ExportWorld, fetchBytes, verifyWithOpenssl } from './world';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The exports on the two servers (PGlite runs everywhere else): one focused pass per engine. */
for (const engine of ['postgres', 'mysql'] as TestEngine[]) {
  describe(`exports on ${engine} (issue #11) @db`, function () {
    this.timeout(180_000);
    requireCorpus(this);
    let w: ExportWorld | undefined;
    before(async function () {
      if (!(await engineAvailable(engine))) {
        if (process.env.CI === 'true') throw new Error(`${engine} is not reachable; CI requires it.`);
        // eslint-disable-next-line no-console
        console.warn(`  [db] ${engine} not reachable: skipping the exports on it.`);
        this.skip();
      }
      w = await buildWorld({}, engine);
    });
    after(async () => { await w?.v.stop(); });

    it('every export is valid and signed; the same as_of gives the same bytes; an evidence bundle is stored and served whole', async () => {
      const v = w!;
      const asOf = encodeURIComponent(v.clock.now().toISOString());
      for (const [format, schema] of [['cyclonedx-vex', 'cyclonedx'], ['openvex', 'openvex'], ['csaf-vex', 'csaf'], ['cyclonedx-sbom', 'cyclonedx'], ['sarif', 'sarif']] as const) {
        const first = await fetchBytes(v.v, `/repositories/${v.repo}/exports/${format}?as_of=${asOf}`, v.admin);
        expect(first.status, format).to.equal(200);
        expectValid(schema, JSON.parse(first.bytes.toString('utf8')));
        expect(await verifyWithOpenssl(v.v, { headers: first.headers } as never, first.bytes)).to.equal('Verified OK');
        expect(sha((await fetchBytes(v.v, `/repositories/${v.repo}/exports/${format}?as_of=${asOf}`, v.admin)).bytes), format).to.equal(sha(first.bytes));
      }
      expect((await fetchBytes(v.v, `/projects/${v.projectId}/export`, v.admin)).status).to.equal(200);
      const bundle = await v.v.request('POST', `/projects/${v.projectId}/evidence-bundles`, { token: v.admin });
      expect(bundle.status, bundle.text).to.equal(201);
      const zip = await fetchBytes(v.v, `/projects/${v.projectId}/evidence-bundles/${bundle.body.id}`, v.admin);
      expect(sha(zip.bytes)).to.equal(bundle.body.sha256);
    });

    it('an evidence bundle as of T: the same SHA-256 twice, a decision after T out of its audit extract', async () => {
      const v = w!;
      const T = v.clock.now().toISOString();
      v.clock.advance(60_000);
      expect((await v.v.request('POST', `/issues/${v.issues.affected}/triage`, { token: v.admin, body: { status: 'will_not_fix', expires_in_days: 30 } })).status).to.equal(200);
      v.clock.advance(60_000);
      const first = await v.v.request('POST', `/projects/${v.projectId}/evidence-bundles?as_of=${encodeURIComponent(T)}`, { token: v.admin });
      expect(first.status, first.text).to.equal(201);
      const second = await v.v.request('POST', `/projects/${v.projectId}/evidence-bundles?as_of=${encodeURIComponent(T)}`, { token: v.admin });
      expect(second.body.sha256).to.equal(first.body.sha256);
      const zip = await fetchBytes(v.v, `/projects/${v.projectId}/evidence-bundles/${first.body.id}`, v.admin);
      expect(sha(zip.bytes)).to.equal(first.body.sha256);
      const files = new Map<string, Buffer>();
      for (const entry of (await unzipper.Open.buffer(zip.bytes)).files) files.set(entry.path, await entry.buffer());
      const extract = files.get('audit/audit-log.jsonl')!.toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(extract.length).to.be.greaterThan(0);
      for (const e of extract) expect(e.at <= T, `entry ${e.seq} at ${e.at}`).to.equal(true);
      const head = JSON.parse(files.get('audit/chain-head.json')!.toString('utf8')).head;
      expect(head.at <= T).to.equal(true);
      expect(head.seq).to.be.at.least(Math.max(...extract.map((e) => e.seq)));
    });
  });
}
