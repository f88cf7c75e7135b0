import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import unzipper from 'unzipper';
import { rebuildProjections } from '../../../../interfaces/cli/rebuild';
import { requireCorpus } from '../../../support/corpus';
import { buildWorld, ExportWorld, fetchBytes } from './world';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const unzip = async (bytes: Buffer) => {
  const files = new Map<string, Buffer>();
  for (const entry of (await unzipper.Open.buffer(bytes)).files) files.set(entry.path, await entry.buffer());
  return files;
};
/** Scheme 3 of the audit chain (ADR 0012): an entry's hash from the previous hash and its own fields. */
const entryHash = (e: any) => sha(Buffer.from(e.prevHash + JSON.stringify([e.seq, e.eventId, e.stream, e.revision, e.position, e.commit, e.type, e.metadataHash, e.dataHash]), 'utf8'));

describe('evidence bundles as of an instant (issue #11): the same as_of gives the same zip @db', function () {
  this.timeout(180_000);
  requireCorpus(this);
  let w: ExportWorld;
  let T: string;
  before(async () => {
    w = await buildWorld();
    T = w.clock.now().toISOString();
    w.clock.advance(60_000);
    // After T: a decision on an issue of the project (its audit entry must stay out of a bundle as of T).
    expect((await w.v.request('POST', `/issues/${w.issues.affected}/triage`, { token: w.admin, body: { status: 'will_not_fix', expires_in_days: 30 } })).status).to.equal(200);
    w.clock.advance(60_000);
  });
  after(async () => { await w?.v.stop(); });

  const generate = (asOf: string) => w.v.request('POST', `/projects/${w.projectId}/evidence-bundles?as_of=${encodeURIComponent(asOf)}`, { token: w.admin });
  const download = async (id: number) => {
    const r = await fetchBytes(w.v, `/projects/${w.projectId}/evidence-bundles/${id}`, w.admin);
    expect(r.status).to.equal(200);
    return r.bytes;
  };
  const bundleRows = async () => Number((await w.v.database.db.knex('evidence_bundles').count({ n: '*' }))[0].n);
  it('[S1.1-13] as_of=T: documents, audit extract and chain head as they stood at T, recorded in the manifest; generated twice, the same SHA-256', async () => {
    const first = await generate(T);
    expect(first.status, first.text).to.equal(201);
    expect(first.body.asOf).to.equal(T);
    expect(first.body.createdAt).to.equal(w.clock.now().toISOString());
    w.clock.advance(1_000);
    const second = await generate(T);
    expect(second.status).to.equal(201);
    expect(second.body.id).to.not.equal(first.body.id);
    expect(second.body.sha256).to.equal(first.body.sha256);
    const bytes = await download(first.body.id);
    expect(sha(bytes)).to.equal(first.body.sha256);
    expect(sha(await download(second.body.id))).to.equal(first.body.sha256);
    const files = await unzip(bytes);
    const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8'));
    expect(manifest.bundle.asOf).to.equal(T);
    for (const f of manifest.files) expect(sha(files.get(f.path)!), f.path).to.equal(f.sha256);
    // Every entry is dated by the instant; the listing says what each bundle answers for.
    for (const entry of (await unzipper.Open.buffer(bytes)).files) expect(entry.lastModifiedDateTime.getTime(), entry.path).to.be.closeTo(Date.parse(T), 2_000);
    const listed = (await w.v.request('GET', `/projects/${w.projectId}/evidence-bundles`, { token: w.admin })).body;
    expect(listed.find((b: any) => b.id === first.body.id)).to.include({ asOf: T, sha256: first.body.sha256 });

    // The documents are those every export answers for T, byte for byte.
    const exportT = await fetchBytes(w.v, `/projects/${w.projectId}/export?as_of=${encodeURIComponent(T)}`, w.admin);
    expect(sha(files.get('project-export.json')!)).to.equal(sha(exportT.bytes));
    const csafT = await fetchBytes(w.v, `/projects/${w.projectId}/exports/csaf-vex?as_of=${encodeURIComponent(T)}`, w.admin);
    expect(files.get(`vex/project-${w.projectId}.csaf.json`)!.equals(csafT.bytes)).to.equal(true);
    // ...and so is its signature (deterministic, RFC 6979), which openssl verifies.
    expect(files.get(`vex/project-${w.projectId}.csaf.json.sig`)!.equals(Buffer.from(csafT.headers.get('vigil-signature')!, 'base64'))).to.equal(true);
    const dir = mkdtempSync(join(tmpdir(), 'vigil-evidence-as-of-'));
    writeFileSync(join(dir, 'pub.pem'), files.get('public-key.pem')!);
    writeFileSync(join(dir, 'manifest.json'), files.get('manifest.json')!);
    writeFileSync(join(dir, 'manifest.sig'), files.get('manifest.json.sig')!);
    expect(execFileSync('openssl', ['dgst', '-sha256', '-verify', join(dir, 'pub.pem'), '-signature', join(dir, 'manifest.sig'), join(dir, 'manifest.json')], { encoding: 'utf8' }).trim()).to.equal('Verified OK');
  });

  it('the audit extract as of T leaves out every entry decided after T, and its chain head is the entry newest at T, verifiable against the entries', async () => {
    const files = await unzip(await download((await generate(T)).body.id));
    const extract = files.get('audit/audit-log.jsonl')!.toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
    const { head, asOf } = JSON.parse(files.get('audit/chain-head.json')!.toString('utf8'));
    expect(asOf).to.equal(T);
    expect(extract.length).to.be.greaterThan(0);
    for (const e of extract) {
      expect(e.at <= T, `entry ${e.seq} at ${e.at}`).to.equal(true);
      expect(entryHash(e), `entry ${e.seq}`).to.equal(e.hash);
    }
    // The decision after T is in the chain (and in a bundle of now), not in the bundle as of T.
    const issueStream = (await w.v.database.db.knex('audit_log').where({ type: 'TriageDecided' }).where('at', '>', T).orderBy('seq'))
      .map((r: any) => r.stream_id);
    expect(issueStream.length, 'the decision after T is audited').to.be.greaterThan(0);
    expect(extract.filter((e) => e.stream === issueStream[0]).every((e) => e.at <= T)).to.equal(true);
    expect(extract.some((e) => e.stream === issueStream[0] && e.type === 'TriageDecided')).to.equal(true); // its decisions before T are there
    const nowFiles = await unzip(await download((await w.v.request('POST', `/projects/${w.projectId}/evidence-bundles`, { token: w.admin })).body.id));
    const nowExtract = nowFiles.get('audit/audit-log.jsonl')!.toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
    const later = nowExtract.filter((e) => e.at > T);
    expect(later.some((e) => e.stream === issueStream[0] && e.type === 'TriageDecided')).to.equal(true);
    expect(extract.map((e) => e.seq)).to.not.include.members(later.map((e) => e.seq));

    // The head: the newest chain entry at or before T; the chain from each extracted entry links up to it.
    const chain = (await w.v.database.db.knex('audit_log').orderBy('seq')).map((r: any) => ({ seq: Number(r.seq), hash: r.hash, prevHash: r.prev_hash, at: r.at }));
    const newestAtT = chain.filter((e) => e.at <= T).pop()!;
    expect(head).to.deep.equal({ seq: newestAtT.seq, hash: newestAtT.hash, at: newestAtT.at });
    expect(chain.some((e) => e.seq > head.seq), 'the chain went on after T').to.equal(true);
    const bySeq = new Map(chain.map((e) => [e.seq, e]));
    for (const e of extract) {
      expect(bySeq.get(e.seq)!.hash).to.equal(e.hash);
      expect(e.seq).to.be.at.most(head.seq);
    }
    for (let seq = Math.min(...extract.map((e) => e.seq)) + 1; seq <= head.seq; seq++) expect(bySeq.get(seq)!.prevHash, `link ${seq}`).to.equal(bySeq.get(seq - 1)!.hash);
    expect(JSON.parse(files.get('manifest.json')!.toString('utf8')).chainHead).to.deep.equal(head);
  });

  it('the same as_of gives the same zip after projections:rebuild', async () => {
    const before = await generate(T);
    await w.v.services.projections.stop();
    await rebuildProjections(w.v.services.projections, [], () => undefined);
    w.v.services.projections.start();
    const after = await generate(T);
    expect(after.status).to.equal(201);
    expect(after.body.sha256).to.equal(before.body.sha256);
    expect(sha(await download(after.body.id))).to.equal(before.body.sha256);
  });

  it('as_of malformed, still to come, or before the project existed: the answer of the other exports, nothing written', async () => {
    const future = new Date(w.clock.now().getTime() + 3_600_000).toISOString();
    for (const asOf of ['soon', '2026-13-01T00:00:00Z', future, '2026-01-01T00:00:00Z', 'x'.repeat(41)]) {
      const events = await w.v.eventCount();
      const rows = await bundleRows();
      const r = await generate(asOf);
      expect(await w.v.eventCount(), asOf).to.equal(events);
      expect(await bundleRows(), asOf).to.equal(rows);
      const other = await w.v.request('GET', `/projects/${w.projectId}/export?as_of=${encodeURIComponent(asOf)}`, { token: w.admin });
      expect(other.status, asOf).to.be.oneOf([400, 404]);
      expect(r.status, asOf).to.equal(other.status);
      expect(r.headers.get('content-type'), asOf).to.match(/application\/problem\+json/);
      expect(r.body.type, asOf).to.equal(other.body.type);
    }
    expect((await generate(future)).status).to.equal(400);
    expect((await generate('2026-01-01T00:00:00Z')).status).to.equal(404);
  });
});
