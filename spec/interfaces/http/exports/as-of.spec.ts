import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { rebuildProjections } from '../../../../interfaces/cli/rebuild';
import { requireCorpus } from '../../../support/corpus';
import { buildWorld, ExportWorld, fetchBytes, T0 } from './world';

const FORMATS = ['cyclonedx-vex', 'openvex', 'csaf-vex', 'cyclonedx-sbom', 'sarif'];
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('as_of: exports and GET /issues/{id} answered from the event log up to an instant @db', function () {
  this.timeout(120_000);
  requireCorpus(this);
  let w: ExportWorld;
  before(async () => { w = await buildWorld(); });
  after(async () => { await w?.v.stop(); });

  const beforeTriage = new Date(Date.parse(T0) + 30_000).toISOString();   // after detection, before the triage (T0 + 1 min)
  const afterTriage = () => new Date(w.clock.now().getTime() - 1_000).toISOString();
  const exportAt = (format: string, asOf: string) => fetchBytes(w.v, `/repositories/${w.repo}/exports/${format}?as_of=${encodeURIComponent(asOf)}`, w.admin);

  it('before and after a triage: the two states, in every VEX format and in GET /issues/{id}', async () => {
    const at = afterTriage();
    const early = JSON.parse((await exportAt('cyclonedx-vex', beforeTriage)).bytes.toString());
    const late = JSON.parse((await exportAt('cyclonedx-vex', at)).bytes.toString());
    const state = (bom: any, cve: string) => bom.vulnerabilities.find((v: any) => v.id === cve && v.affects[0].ref.startsWith('repository-1:')).analysis;
    expect(state(early, 'CVE-2024-0006')).to.deep.equal({ state: 'in_triage' });
    expect(state(late, 'CVE-2024-0006')).to.deep.equal({ state: 'exploitable', response: ['will_not_fix'] });
    expect(state(early, 'GHSA-jf85-cpcp-j695')).to.deep.equal({ state: 'in_triage' });
    expect(state(late, 'GHSA-jf85-cpcp-j695')).to.deep.equal({ state: 'resolved' });
    expect(early.metadata.timestamp).to.equal(beforeTriage);
    const openvex = JSON.parse((await exportAt('openvex', beforeTriage)).bytes.toString());
    expect(new Set(openvex.statements.map((s: any) => s.status))).to.deep.equal(new Set(['under_investigation']));

    const id = w.issues.will_not_fix;
    const then = await w.v.request('GET', `/issues/${id}?as_of=${encodeURIComponent(beforeTriage)}`, { token: w.admin });
    expect(then.status).to.equal(200);
    expect(then.body).to.include({ triageStatus: 'under_review', reviewDate: null, asOf: beforeTriage, status: 'open' });
    expect(then.body.history.map((h: any) => h.type)).to.deep.equal(['IssueDetected']);
    const now = await w.v.request('GET', `/issues/${id}?as_of=${encodeURIComponent(at)}`, { token: w.admin });
    expect(now.body).to.include({ triageStatus: 'will_not_fix' });
    expect(now.body.history.map((h: any) => h.type)).to.deep.equal(['IssueDetected', 'TriageDecided']);
    const pending = await w.v.request('GET', `/issues/${w.issues.pending_approval}?as_of=${encodeURIComponent(at)}`, { token: w.admin });
    expect(pending.body).to.include({ triageStatus: 'pending_approval', triageRequestedStatus: 'not_affected' });
    expect((await w.v.request('GET', `/issues/${id}?as_of=2025-01-01T00:00:00Z`, { token: w.admin })).status).to.equal(404);
    expect((await w.v.request('GET', `/issues/${id}?as_of=soon`, { token: w.admin })).status).to.equal(400);
  });

  it('the same as_of gives the same bytes every time, after later decisions, and after projections:rebuild', async () => {
    const at = afterTriage();
    const first: Record<string, string> = {};
    for (const format of FORMATS) first[format] = sha((await exportAt(format, at)).bytes);
    for (const format of FORMATS) expect(sha((await exportAt(format, at)).bytes), format).to.equal(first[format]);
    // A later decision changes today's export, not the one as of the earlier instant.
    w.clock.advance(60_000);
    expect((await w.v.request('POST', `/issues/${w.issues.under_review}/triage`, { token: w.admin, body: { status: 'affected' } })).status).to.equal(200);
    w.clock.advance(60_000);
    for (const format of FORMATS) expect(sha((await exportAt(format, at)).bytes), format).to.equal(first[format]);
    expect(sha((await exportAt('cyclonedx-vex', afterTriage())).bytes)).not.to.equal(first['cyclonedx-vex']);
    await w.v.services.projections.stop();
    const lines: string[] = [];
    await rebuildProjections(w.v.services.projections, [], (line) => lines.push(line));
    for (const format of FORMATS) expect(sha((await exportAt(format, at)).bytes), `${format} after a rebuild`).to.equal(first[format]);
    w.v.services.projections.start();
  });
});
