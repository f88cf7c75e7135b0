import { expect } from 'chai';
import { createHash } from 'node:crypto';
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
  });
}
