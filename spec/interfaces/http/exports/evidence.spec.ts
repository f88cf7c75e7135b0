import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import unzipper from 'unzipper';
import { requireCorpus } from '../../../support/corpus';
import { buildWorld, ExportWorld, fetchBytes } from './world';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('evidence bundles for auditors (issue #11) @db', function () {
  this.timeout(120_000);
  requireCorpus(this);
  let w: ExportWorld;
  before(async () => { w = await buildWorld(); });
  after(async () => { await w?.v.stop(); });

  it('[S1.1-13] one zip per project: VEX documents, SBOMs, the project export, the audit extract with the chain head, a manifest of SHA-256 digests; every signature verifies with openssl', async () => {
    const created = await w.v.request('POST', `/projects/${w.projectId}/evidence-bundles`, { token: w.admin });
    expect(created.status, created.text).to.equal(201);
    const download = await fetchBytes(w.v, `/projects/${w.projectId}/evidence-bundles/${created.body.id}`, w.admin);
    expect(download.status).to.equal(200);
    expect(download.headers.get('content-type')).to.match(/^application\/zip/);
    expect(sha(download.bytes)).to.equal(created.body.sha256);
    const zip = await unzipper.Open.buffer(download.bytes);
    const files = new Map<string, Buffer>();
    for (const entry of zip.files) files.set(entry.path, await entry.buffer());
    const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8'));
    expect(manifest.files.map((f: any) => f.path)).to.include.members([
      `vex/project-${w.projectId}.cdx.json`, `vex/project-${w.projectId}.openvex.json`, `vex/project-${w.projectId}.csaf.json`,
      'project-export.json', `sbom/repository-${w.repo}.cdx.json`, `sbom/repository-${w.other}.cdx.json`, 'audit/audit-log.jsonl', 'audit/chain-head.json', 'public-key.pem',
    ]);
    for (const f of manifest.files) expect(sha(files.get(f.path)!), f.path).to.equal(f.sha256);
    const dir = mkdtempSync(join(tmpdir(), 'vigil-evidence-'));
    writeFileSync(join(dir, 'pub.pem'), files.get('public-key.pem')!);
    expect(files.get('public-key.pem')!.toString()).to.equal((await w.v.request('GET', '/crypto/public-key.pub')).text);
    for (const path of [...files.keys()].filter((p) => files.has(`${p}.sig`))) {
      writeFileSync(join(dir, 'doc'), files.get(path)!);
      writeFileSync(join(dir, 'sig'), files.get(`${path}.sig`)!);
      expect(execFileSync('openssl', ['dgst', '-sha256', '-verify', join(dir, 'pub.pem'), '-signature', join(dir, 'sig'), join(dir, 'doc')], { encoding: 'utf8' }).trim(), path).to.equal('Verified OK');
    }
    const audit = files.get('audit/audit-log.jsonl')!.toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(audit.some((e) => e.type === 'TriageDecided')).to.equal(true);
    expect(audit.some((e) => e.stream === `repository-${w.repo}`)).to.equal(true);
    // Each extracted entry's hash is recomputable by anybody from its own fields (scheme 3, ADR 0012), and the head is at or past every one of them.
    for (const e of audit) {
      const recomputed = sha(Buffer.from(e.prevHash + JSON.stringify([e.seq, e.eventId, e.stream, e.revision, e.position, e.commit, e.type, e.metadataHash, e.dataHash]), 'utf8'));
      expect(recomputed, `entry ${e.seq}`).to.equal(e.hash);
    }
    const head = JSON.parse(files.get('audit/chain-head.json')!.toString('utf8')).head;
    expect(head.hash).to.match(/^[0-9a-f]{64}$/);
    expect(head.seq).to.be.at.least(Math.max(...audit.map((e) => e.seq)));
    expect(manifest.chainHead).to.deep.equal(head);
    // The download is the project export leaving the platform.
    const exported = await w.v.database.db.knex('events').where({ stream_id: `project-exports-${w.projectId}`, type: 'ProjectExported' });
    expect(JSON.parse(exported[exported.length - 1].data).siem.message.startsWith(sha(files.get('project-export.json')!))).to.equal(true);
  });

  it('[S1.5-26] evidence_retention_days bounds how long a bundle is kept: then 410, its digest still listed; somebody not seeing the whole project gets 404', async () => {
    const governor = await w.v.account(['platform_governor']);
    expect((await w.v.request('PATCH', '/settings', { token: governor.token, body: { evidence_retention_days: 1 } })).status).to.equal(200);
    const created = await w.v.request('POST', `/projects/${w.projectId}/evidence-bundles`, { token: w.admin });
    expect(created.body.expiresAt).to.equal(new Date(w.clock.now().getTime() + 86_400_000).toISOString());
    w.clock.advance(2 * 86_400_000);
    const admin = await w.v.signIn();
    const list = await w.v.request('GET', `/projects/${w.projectId}/evidence-bundles`, { token: admin });
    expect(list.body.find((b: any) => b.id === created.body.id)).to.include({ available: false, sha256: created.body.sha256 });
    expect((await w.v.request('GET', `/projects/${w.projectId}/evidence-bundles/${created.body.id}`, { token: admin })).status).to.equal(410);
    const stranger = await w.v.account(['reader']);
    const before = await w.v.eventCount();
    expect((await w.v.request('POST', `/projects/${w.projectId}/evidence-bundles`, { token: stranger.token })).status).to.equal(404);
    expect((await w.v.request('GET', `/projects/${w.projectId}/evidence-bundles`, { token: stranger.token })).status).to.equal(404);
    expect(await w.v.eventCount()).to.equal(before);
  });
});
