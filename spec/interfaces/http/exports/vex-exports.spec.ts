import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileByteSpools } from '../../../../infrastructure/exports/byte-spool';
import { JUSTIFICATION_READING, VEX_READING, type VexSituation } from '../../../../domain/exports/vex-reading';
import { requireCorpus } from '../../../support/corpus';
import { csafMandatoryFailures, expectValid, expectValidAttestation } from '../../../support/export-schemas';
import { buildWorld, ExportWorld, fetchBytes, SITUATIONS, verifyWithOpenssl } from './world';

const SCHEMA = { 'cyclonedx-vex': 'cyclonedx', openvex: 'openvex', 'csaf-vex': 'csaf' } as const;

/** The status an export gives a vulnerability on a component, in that format's words. */
function statusIn(format: keyof typeof SCHEMA, doc: any, cve: string, purl: string): unknown {
  if (format === 'cyclonedx-vex') {
    const v = doc.vulnerabilities.find((x: any) => x.id === cve && x.affects[0].ref.endsWith(`:${purl}`) && x.affects[0].ref.startsWith('repository-1:'));
    return v && { state: v.analysis.state, response: v.analysis.response ?? null, justification: v.analysis.justification ?? null };
  }
  if (format === 'openvex') {
    const s = doc.statements.find((x: any) => x.vulnerability.name === cve && x.products[0].subcomponents[0]['@id'] === purl && x.products[0]['@id'].endsWith('/repositories/1'));
    return s && { status: s.status, action: s.action_statement ? s.action_statement.split(':')[0] : null, justification: s.justification ?? null };
  }
  const v = doc.vulnerabilities.find((x: any) => (x.cve ?? x.ids?.[0].text) === cve);
  const id = `repository-1:${purl}`;
  const status = Object.entries(v.product_status).find(([, ids]) => (ids as string[]).includes(id))?.[0];
  const remediation = (v.remediations ?? []).find((r: any) => r.product_ids.includes(id))?.category ?? null;
  const flag = (v.flags ?? []).find((f: any) => f.product_ids.includes(id))?.label ?? null;
  return { status, remediation, flag };
}

function expected(format: keyof typeof SCHEMA, situation: VexSituation, justification: keyof typeof JUSTIFICATION_READING | null): unknown {
  const cells = VEX_READING[situation];
  const j = justification && situation === 'not_affected_with_justification' ? JUSTIFICATION_READING[justification] : null;
  if (format === 'cyclonedx-vex') return { state: cells.cyclonedx.state, response: cells.cyclonedx.response ? [...cells.cyclonedx.response] : null, justification: j?.cyclonedx ?? null };
  if (format === 'openvex') return { status: cells.openvex.status, action: cells.openvex.action ? cells.openvex.action.split(':')[0] : null, justification: j?.openvex ?? null };
  return { status: cells.csaf.status, remediation: cells.csaf.remediation, flag: j?.csaf ?? null };
}

describe('signed VEX exports over HTTP (spec 1 §1.9, §4.5) @db', function () {
  this.timeout(120_000);
  requireCorpus(this);
  let w: ExportWorld;
  before(async () => { w = await buildWorld(); });
  after(async () => { await w?.v.stop(); });

  for (const format of Object.keys(SCHEMA) as Array<keyof typeof SCHEMA>) {
    it(`[S1.1-13] [S1.4.5-11] [S1.4.5-12] [S1.4.5-13] [S1.4.5-17] ${format} of a repository: each issue's situation read through the one table, valid against the official schema, signed (openssl verifies the bytes served)`, async () => {
      expect(w.repo).to.equal(1);
      const answer = await fetchBytes(w.v, `/repositories/${w.repo}/exports/${format}`, w.admin);
      expect(answer.status).to.equal(200);
      const doc = JSON.parse(answer.bytes.toString('utf8'));
      expectValid(SCHEMA[format], doc);
      if (format === 'csaf-vex') expect(await csafMandatoryFailures(doc)).to.deep.equal([]);
      for (const s of SITUATIONS) {
        const justification = s.name === 'not_affected_with_justification' ? 'code_not_reachable' : null;
        expect(statusIn(format, doc, s.cve, s.purl), `${format} ${s.name}`).to.deep.equal(expected(format, s.name as VexSituation, justification));
      }
      expect(answer.headers.get('vigil-document-sha256')).to.equal(createHash('sha256').update(answer.bytes).digest('hex'));
      expect(answer.headers.get('vigil-key-fingerprint')).to.equal(`sha256:${(await w.v.request('GET', '/health')).body.signingKey.fingerprint}`);
      expect(await verifyWithOpenssl(w.v, { headers: answer.headers } as never, answer.bytes)).to.equal('Verified OK');
      // A changed byte no longer verifies.
      const altered = Buffer.from(answer.bytes);
      altered[altered.length - 3] ^= 1;
      expect(() => execFileSync('openssl', ['version'])).not.to.throw();
      let refused = false;
      try { await verifyWithOpenssl(w.v, { headers: answer.headers } as never, altered); } catch { refused = true; }
      expect(refused).to.equal(true);
    });
  }

  it('[S1.8.3-08] [S1.8.3-57] VIGIL_VEX_AUTHOR and VIGIL_PUBLIC_URL name the author and the identifiers; a project and a solution hold every target of theirs', async () => {
    const openvex = (await w.v.request('GET', `/projects/${w.projectId}/exports/openvex`, { token: w.admin })).body;
    expect(openvex.author).to.equal('Example PSIRT');
    expect(openvex['@id']).to.match(/^https:\/\/vigil\.example\.org\/api\/v1\/projects\/\d+\/exports\/openvex\?as_of=/);
    const products = new Set(openvex.statements.map((s: any) => s.products[0]['@id']));
    expect([...products].sort()).to.deep.equal([`https://vigil.example.org/api/v1/repositories/${w.other}`, `https://vigil.example.org/api/v1/repositories/${w.repo}`].sort());
    const csaf = (await w.v.request('GET', `/solutions/${w.solutionId}/exports/csaf-vex`, { token: w.admin })).body;
    expectValid('csaf', csaf);
    expect(csaf.document.publisher).to.deep.include({ name: 'Example PSIRT', namespace: 'https://vigil.example.org' });
    expect(csaf.vulnerabilities.find((v: any) => v.cve === 'CVE-2024-0002').product_status).to.deep.equal({
      known_affected: ['repository-1:pkg:npm/lodash@4.17.20'], under_investigation: [`repository-${w.other}:pkg:npm/lodash@4.17.20`],
    });
  });

  it('envelope=dsse answers an in-toto Statement v1 about the document in a DSSE envelope; openssl verifies its signature over the PAE', async () => {
    const path = `/repositories/${w.repo}/exports/cyclonedx-vex`;
    const document = await fetchBytes(w.v, `${path}?as_of=${encodeURIComponent(w.clock.now().toISOString())}`, w.admin);
    const answer = await w.v.request('GET', `${path}?as_of=${encodeURIComponent(w.clock.now().toISOString())}&envelope=dsse`, { token: w.admin });
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.match(/^application\/vnd\.dsse\.envelope\.v1\+json/);
    const envelope = answer.body;
    expectValidAttestation(envelope);
    expect(Object.keys(envelope).sort()).to.deep.equal(['payload', 'payloadType', 'signatures']);
    expect(envelope.payloadType).to.equal('application/vnd.in-toto+json');
    expect(envelope.signatures).to.have.length(1);
    expect(envelope.signatures[0].keyid).to.match(/^sha256:[0-9a-f]{64}$/);
    const statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8'));
    // in-toto Statement v1 (fixtures/schemas/in-toto/statement-v1.md): _type, subject with digests, predicateType, predicate.
    expect(statement._type).to.equal('https://in-toto.io/Statement/v1');
    expect(statement.subject).to.deep.equal([{ name: document.headers.get('content-disposition')!.match(/filename="(.+)"/)![1], digest: { sha256: createHash('sha256').update(document.bytes).digest('hex') } }]);
    expect(statement.predicateType).to.match(/^https:\/\//);
    expect(statement.predicate).to.be.an('object');
    const payload = Buffer.from(envelope.payload, 'base64');
    const pae = Buffer.concat([Buffer.from(`DSSEv1 ${envelope.payloadType.length} ${envelope.payloadType} ${payload.length} `), payload]);
    const dir = mkdtempSync(join(tmpdir(), 'vigil-dsse-'));
    writeFileSync(join(dir, 'pub.pem'), (await w.v.request('GET', '/crypto/public-key.pub')).text);
    writeFileSync(join(dir, 'sig.der'), Buffer.from(envelope.signatures[0].sig, 'base64'));
    writeFileSync(join(dir, 'pae'), pae);
    expect(execFileSync('openssl', ['dgst', '-sha256', '-verify', join(dir, 'pub.pem'), '-signature', join(dir, 'sig.der'), join(dir, 'pae')], { encoding: 'utf8' }).trim()).to.equal('Verified OK');
  });

  it('a document past the spool memory limit is signed and sent from a temporary file: openssl verifies the bytes, the file is gone afterwards (also after a DSSE answer and a client that leaves mid-body)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-spool-http-'));
    const services = w.v.services as { exportSpools: unknown };
    const kept = services.exportSpools;
    // The same spool with a 1 KB memory limit (the installation's is 1 MB), so that these small documents go to a file.
    services.exportSpools = new FileByteSpools(dir, 1024);
    // The file is removed once the answer has ended, which the client may see a moment before.
    const spoolFiles = async () => { for (let i = 0; i < 50 && readdirSync(dir).length; i++) await new Promise((r) => setTimeout(r, 20)); return readdirSync(dir); };
    try {
      for (const path of [`/repositories/${w.repo}/exports/cyclonedx-vex`, `/projects/${w.projectId}/export`, `/solutions/${w.solutionId}/exports/csaf-vex`]) {
        const answer = await fetchBytes(w.v, path, w.admin);
        expect(answer.status, path).to.equal(200);
        expect(answer.bytes.length, path).to.be.above(1024);
        expect(answer.headers.get('content-length')).to.equal(String(answer.bytes.length));
        expect(answer.headers.get('vigil-document-sha256')).to.equal(createHash('sha256').update(answer.bytes).digest('hex'));
        expect(await verifyWithOpenssl(w.v, { headers: answer.headers } as never, answer.bytes), path).to.equal('Verified OK');
        expect(await spoolFiles(), path).to.deep.equal([]);
      }
      expect((await w.v.request('GET', `/repositories/${w.repo}/exports/sarif?envelope=dsse`, { token: w.admin })).status).to.equal(200);
      expect(await spoolFiles()).to.deep.equal([]);
      // A client that reads the headers and leaves.
      const controller = new AbortController();
      const res = await fetch(`${w.v.url}/api/v1/repositories/${w.repo}/exports/openvex`, { headers: { authorization: `Bearer ${w.admin}` }, signal: controller.signal });
      expect(res.status).to.equal(200);
      controller.abort();
      expect(await spoolFiles()).to.deep.equal([]);
    } finally {
      services.exportSpools = kept;
    }
  });

  it('refusals: unknown and unseen scopes 404 alike, a key needs scope read, a malformed as_of 400, SBOM and SARIF are not served for a project; nothing is written', async () => {
    const outsider = await w.v.account(['reader']);
    const readKey = await w.v.key(w.admin, { name: 'exports-read', scopes: ['read'] });
    const scanKey = await w.v.key(w.admin, { name: 'exports-scan', scopes: ['scan'] });
    const before = await w.v.eventCount();
    const status = async (path: string, o: { token?: string; apiKey?: string } = { token: w.admin }) => (await w.v.request('GET', path, o)).status;
    expect(await status('/repositories/999/exports/openvex')).to.equal(404);
    expect(await status(`/repositories/${w.repo}/exports/openvex`, { token: outsider.token })).to.equal(404);
    expect(await status(`/projects/${w.projectId}/exports/openvex`, { token: outsider.token })).to.equal(404);
    expect(await status(`/solutions/${w.solutionId}/exports/openvex`, { token: outsider.token })).to.equal(404);
    expect(await status('/projects/999/exports/csaf-vex')).to.equal(404);
    expect(await status(`/repositories/${w.repo}/exports/openvex`, { apiKey: readKey.key })).to.equal(200);
    expect(await status(`/repositories/${w.repo}/exports/openvex`, { apiKey: scanKey.key })).to.equal(403);
    expect(await status(`/repositories/${w.repo}/exports/openvex?as_of=yesterday`)).to.equal(400);
    expect(await status(`/repositories/${w.repo}/exports/openvex?as_of=2026-02-30T25:00:00Z`)).to.equal(400);
    expect(await status(`/repositories/${w.repo}/exports/openvex?as_of=2999-01-01T00:00:00Z`)).to.equal(400);
    expect(await status(`/projects/${w.projectId}/exports/sarif`)).to.equal(404);
    expect(await status(`/repositories/${w.repo}/exports/pdf`)).to.equal(404);
    expect(await status('/containers/1/exports/openvex')).to.equal(404);
    expect(await w.v.eventCount()).to.equal(before);
  });
});
