import { expect } from 'chai';
import { requireCorpus } from '../../../support/corpus';
import { expectValid } from '../../../support/export-schemas';
import { buildWorld, ExportWorld, fetchBytes, verifyWithOpenssl } from './world';

describe('CycloneDX SBOM and SARIF exports of a target (spec 1 §1.9, §4.5) @db', function () {
  this.timeout(120_000);
  requireCorpus(this);
  let w: ExportWorld;
  before(async () => {
    w = await buildWorld();
    const key = await w.v.key(w.admin, { name: 'pipeline', scopes: ['report_import', 'read'] });
    const governor = await w.v.account(['platform_governor']);
    const source = await w.v.request('POST', '/sarif-sources', { token: governor.token, body: { slug: 'ci', name: 'CI', api_key_id: key.id, repository_id: w.repo, kinds: ['sbom'] } });
    expect(source.status, source.text).to.equal(201);
    const bom = JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components: [
      { type: 'library', name: 'lodash', version: '4.17.20', purl: 'pkg:npm/lodash@4.17.20' },
      { type: 'framework', name: 'build-only', version: '1.0.0', purl: 'pkg:npm/build-only@1.0.0' },
    ] });
    const imported = await w.v.request('POST', `/repositories/${w.repo}/build-sbom-imports?branch=main`, { apiKey: key.key, raw: bom, contentType: 'application/vnd.cyclonedx+json' });
    expect(imported.status, imported.text).to.equal(201);
  });
  after(async () => { await w?.v.stop(); });

  it('[S1.1-13] cyclonedx-sbom: the inventory, each component with its source build, scanner or both; valid CycloneDX 1.6; signed', async () => {
    const answer = await fetchBytes(w.v, `/repositories/${w.repo}/exports/cyclonedx-sbom`, w.admin);
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.match(/^application\/vnd\.cyclonedx\+json/);
    const bom = JSON.parse(answer.bytes.toString('utf8'));
    expectValid('cyclonedx', bom);
    const source = (purl: string) => bom.components.find((c: any) => c.purl === purl)?.properties.find((p: any) => p.name === 'vigil:source').value;
    expect(source('pkg:npm/lodash@4.17.20')).to.equal('both');
    expect(source('pkg:npm/build-only@1.0.0')).to.equal('build');
    expect(source('pkg:npm/left-pad@1.0.0')).to.equal('scanner');
    // A resolved finding's package is no longer in the inventory.
    expect(source('pkg:npm/axios@0.21.0')).to.equal(undefined);
    expect(await verifyWithOpenssl(w.v, { headers: answer.headers } as never, answer.bytes)).to.equal('Verified OK');
  });

  it('[S1.4.5-19] [S1.8.3-08] sarif: the open backlog, settled statuses as accepted suppressions, VIGIL_PUBLIC_URL as information URI; valid SARIF 2.1.0; signed', async () => {
    const answer = await fetchBytes(w.v, `/repositories/${w.repo}/exports/sarif`, w.admin);
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.match(/^application\/sarif\+json/);
    const log = JSON.parse(answer.bytes.toString('utf8'));
    expectValid('sarif', log);
    const run = log.runs[0];
    expect(run.tool.driver.informationUri).to.equal('https://vigil.example.org');
    const byIssue = new Map(run.results.map((r: any) => [Number(r.partialFingerprints['vigilIssue/v1']), r]));
    for (const [name, id] of Object.entries(w.issues)) {
      const result: any = byIssue.get(id);
      if (name === 'resolved') { expect(result, name).to.equal(undefined); continue; }
      const settled = ['not_affected_with_justification', 'not_affected_without_justification', 'will_not_fix', 'fixed'].includes(name);
      expect(Boolean(result.suppressions), name).to.equal(settled);
      if (settled) expect(result.suppressions[0]).to.include({ kind: 'external', status: 'accepted' });
    }
    expect(await verifyWithOpenssl(w.v, { headers: answer.headers } as never, answer.bytes)).to.equal('Verified OK');
  });
});
