import { expect } from 'chai';
import { seedFindings } from '../../support/backlog';
import { RunningVigil, startVigil } from '../../support/vigil';

describe('Backlog: ingestion path and GET /issues', function () {
  let v: RunningVigil;
  let admin: string;
  let repo: number;

  before(async () => {
    v = await startVigil();
    admin = await v.signIn();
    repo = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/backlog/one' } })).body.id;
  });
  after(async () => { await v.stop(); });

  it('creates one issue per identity, never per line, and nothing on the same report again', async () => {
    const first = await seedFindings(v, { kind: 'repository', id: repo }, [
      { ruleId: 'R1', path: 'src/a.ts', line: 3 }, { ruleId: 'R1', path: 'src/a.ts', line: 90 }, { ruleId: 'R2', path: 'src/b.ts' },
    ], { toolKey: 'import:ci/semgrep', type: 'imported' });
    expect(first).to.deep.equal({ created: 2, resolved: 0, reopened: 0 });
    const again = await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId: 'R1', path: 'src/a.ts', line: 5 }, { ruleId: 'R2', path: 'src/b.ts' }], { toolKey: 'import:ci/semgrep', type: 'imported' });
    expect(again).to.deep.equal({ created: 0, resolved: 0, reopened: 0 });
    const list = await v.request('GET', `/issues?repository_id=${repo}`, { token: admin });
    expect(list.status).to.equal(200);
    expect(list.body).to.have.length(2);
  });

  it('resolves what a later report of the same scope lacks, touching no other scope, and reopens it when it returns', async () => {
    await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId: 'CVE-1' }], { toolKey: 'scanner:vulnerability' });
    const resolved = await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId: 'R1', path: 'src/a.ts' }], { toolKey: 'import:ci/semgrep', type: 'imported' });
    expect(resolved).to.deep.equal({ created: 0, resolved: 1, reopened: 0 });
    const open = await v.request('GET', `/issues?repository_id=${repo}&status=open`, { token: admin });
    expect(open.body.map((i: { ruleId: string }) => i.ruleId).sort()).to.deep.equal(['CVE-1', 'R1']);
    const back = await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId: 'R1', path: 'src/a.ts' }, { ruleId: 'R2', path: 'src/b.ts' }], { toolKey: 'import:ci/semgrep', type: 'imported' });
    expect(back).to.deep.equal({ created: 0, resolved: 0, reopened: 1 });
  });

  it('answers one issue with provenance, history and an ETag of its revision; reopen entries have actor null', async () => {
    const list = await v.request('GET', `/issues?repository_id=${repo}`, { token: admin });
    const r2 = list.body.find((i: { ruleId: string }) => i.ruleId === 'R2');
    const one = await v.request('GET', `/issues/${r2.id}`, { token: admin });
    expect(one.status).to.equal(200);
    expect(one.headers.get('etag')).to.equal(`"${one.body.revision}"`);
    expect(one.body.provenance).to.include({ type: 'imported', toolKey: 'import:ci/semgrep' });
    expect(one.body.history.map((h: { type: string }) => h.type)).to.deep.equal(['IssueDetected', 'IssueResolved', 'IssueReopened']);
    const reopen = one.body.history[2];
    expect(reopen.actor).to.equal(null);
    expect(reopen.previousResolvedAt).to.be.a('string');
  });

  it('answers 404 alike for an unknown issue and one on a target the caller does not see', async () => {
    const writer = await v.account(['writer']);
    const list = await v.request('GET', `/issues?repository_id=${repo}`, { token: admin });
    const unseen = await v.request('GET', `/issues/${list.body[0].id}`, { token: writer.token });
    const unknown = await v.request('GET', '/issues/99999999', { token: writer.token });
    expect(unseen.status).to.equal(404);
    expect(unknown.status).to.equal(404);
    expect((await v.request('GET', '/issues', { token: writer.token })).body).to.deep.equal([]);
  });

  it('[S1.4.5-03] filters by triage_status and unsettled', async () => {
    const all = await v.request('GET', `/issues?triage_status=under_review&repository_id=${repo}`, { token: admin });
    expect(all.body.length).to.be.greaterThan(0);
    const none = await v.request('GET', `/issues?triage_status=fixed&repository_id=${repo}`, { token: admin });
    expect(none.body).to.deep.equal([]);
    const bad = await v.request('GET', '/issues?triage_status=sleeping', { token: admin });
    expect(bad.status).to.equal(400);
    expect((await v.request('GET', `/issues?unsettled=true&repository_id=${repo}`, { token: admin })).body.length).to.equal(all.body.length);
  });
});
