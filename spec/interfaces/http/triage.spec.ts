import { expect } from 'chai';
import { ManualClock } from '../../../application/ports/clock';
import { seedFindings } from '../../support/backlog';
import { Answer, RunningVigil, startVigil } from '../../support/vigil';

const DAY = 86_400_000;
const T0 = '2026-01-01T00:00:00.000Z';
const daysAfter = (iso: string, days: number) => new Date(Date.parse(iso) + days * DAY).toISOString();

describe('Triage over HTTP (spec 1 §3.2, §4.5)', function () {
  let v: RunningVigil;
  let clock: ManualClock;
  let admin: string;
  let repo: number;
  let hidden: number;
  let alice: { id: number; token: string; username: string };
  let bob: { id: number; token: string; username: string };
  let reader: { id: number; token: string; username: string };
  let outsider: { id: number; token: string; username: string };
  let n = 0;

  before(async () => {
    clock = new ManualClock(new Date(T0));
    v = await startVigil({ clock });
    admin = await v.signIn();
    repo = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/triage/seen' } })).body.id;
    hidden = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/triage/hidden' } })).body.id;
    alice = await v.account(['writer']);
    bob = await v.account(['security_lead']);
    reader = await v.account(['reader']);
    outsider = await v.account(['writer']);
    const team = await v.request('POST', '/teams', { token: admin, body: { name: 'triagers' } });
    for (const who of [alice, bob, reader]) await v.request('POST', `/teams/${team.body.id}/members`, { token: admin, body: { accountId: who.id } });
    await v.request('POST', `/teams/${team.body.id}/grants`, { token: admin, body: { kind: 'repository', id: repo } });
  });
  after(async () => { await v.stop(); });

  /** A fresh issue on its own tool key (so seeding another never resolves it), with its ETag. */
  async function newIssue(target = repo, severity: 'critical' | 'high' | 'medium' | 'low' = 'high') {
    const ruleId = `RULE-${++n}`;
    const toolKey = `scanner:triage-${n}`;
    await seedFindings(v, { kind: 'repository', id: target }, [{ ruleId, severity }], { toolKey });
    const list = await v.request('GET', `/issues?repository_id=${target}&limit=1000`, { token: admin });
    const id: number = list.body.find((i: { ruleId: string }) => i.ruleId === ruleId).id;
    const one = await v.request('GET', `/issues/${id}`, { token: admin });
    return { id, ruleId, toolKey, target, etag: one.headers.get('etag')! };
  }
  const resolve = (issue: { toolKey: string; target: number }) => seedFindings(v, { kind: 'repository', id: issue.target }, [], { toolKey: issue.toolKey });
  const get = (id: number, token = admin) => v.request('GET', `/issues/${id}`, { token });
  const triage = (id: number, token: string, body: unknown, headers?: Record<string, string>) => v.request('POST', `/issues/${id}/triage`, { token, body, headers });
  const approve = (id: number, token: string, status: string) => v.request('POST', `/issues/${id}/triage-approval`, { token, body: { status } });
  const turnDown = (id: number, token: string, body: unknown) => v.request('POST', `/issues/${id}/triage-refusal`, { token, body });
  const review = (id: number, token: string, body: unknown) => v.request('POST', `/exceptions/${id}/reviews`, { token, body });
  const setFourEyes = async (on: boolean) => expect((await v.request('PATCH', '/settings', { token: admin, body: { triage_four_eyes: on } })).status).to.equal(200);
  const last = (issue: { history: Array<Record<string, unknown>> }) => issue.history[issue.history.length - 1];

  /** The refusal answers `status` and writes no event at all. */
  async function refusedWithNothingWritten(status: number, call: () => Promise<Answer>): Promise<Answer> {
    const before = await v.eventCount();
    const r = await call();
    expect(r.status, r.text).to.equal(status);
    expect(r.headers.get('content-type')).to.match(/application\/problem\+json/);
    expect(await v.eventCount(), 'events written by a refusal').to.equal(before);
    return r;
  }

  describe('POST /issues/{id}/triage', () => {
    it('[S1.4.5-01] [S1.3.2-03] with four-eyes off, a settling status is set directly; the answer is the issue with its new ETag', async () => {
      const issue = await newIssue();
      const r = await triage(issue.id, alice.token, { status: 'not_affected', justification: 'code_not_reachable', comment: 'dead code path' });
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.include({ id: issue.id, triageStatus: 'not_affected', triageRequestedStatus: null, justification: 'code_not_reachable', reviewDate: null });
      expect(r.headers.get('etag')).to.equal(`"${r.body.revision}"`).and.not.equal(issue.etag);
      expect((await get(issue.id)).headers.get('etag')).to.equal(r.headers.get('etag'));
    });

    it('[S1.4.5-04] the decision shows in the issue history with actor, justification and comment', async () => {
      const issue = await newIssue();
      await triage(issue.id, alice.token, { status: 'not_affected', justification: 'requires_environment', comment: 'only on Windows' });
      const entry = last((await get(issue.id, alice.token)).body);
      expect(entry).to.include({ type: 'TriageDecided', actor: alice.id, status: 'not_affected', justification: 'requires_environment', comment: 'only on Windows', reviewDate: null });
      expect(entry.at).to.equal(T0);
    });

    it('[S1.2.3-01] will_not_fix with expires_in_days sets the review date to now plus the days; history shows it', async () => {
      const issue = await newIssue();
      const r = await triage(issue.id, alice.token, { status: 'will_not_fix', expires_in_days: 30, comment: 'accepted until the rewrite' });
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.include({ triageStatus: 'will_not_fix', reviewDate: daysAfter(T0, 30), justification: null });
      expect(last(r.body)).to.include({ actor: alice.id, status: 'will_not_fix', reviewDate: daysAfter(T0, 30), comment: 'accepted until the rewrite' });
    });

    it('[S1.2.3-01] an unsettling status (affected, under_review) is set directly and can move a settled issue back', async () => {
      const issue = await newIssue();
      expect((await triage(issue.id, alice.token, { status: 'fixed' })).body.triageStatus).to.equal('fixed');
      expect((await triage(issue.id, alice.token, { status: 'affected', comment: 'not fixed after all' })).body.triageStatus).to.equal('affected');
      expect((await triage(issue.id, bob.token, { status: 'under_review' })).body.triageStatus).to.equal('under_review');
    });

    it('[S1.4.5-07] will_not_fix without expires_in_days answers 400 and writes nothing', async () => {
      const issue = await newIssue();
      const r = await refusedWithNothingWritten(400, () => triage(issue.id, alice.token, { status: 'will_not_fix', comment: 'later' }));
      expect(r.body.detail).to.contain('expires_in_days');
      await refusedWithNothingWritten(400, () => triage(issue.id, alice.token, { status: 'will_not_fix', expires_in_days: null }));
      expect((await get(issue.id)).body.triageStatus).to.equal('under_review');
    });

    it('[S1.4.5-08] expires_in_days 0 or 3651 answers 400; 1 and 3650 are accepted', async () => {
      const issue = await newIssue();
      for (const days of [0, 3651, -5, 2.5]) await refusedWithNothingWritten(400, () => triage(issue.id, alice.token, { status: 'will_not_fix', expires_in_days: days }));
      expect((await triage(issue.id, alice.token, { status: 'will_not_fix', expires_in_days: 3650 })).body.reviewDate).to.equal(daysAfter(T0, 3650));
      expect((await triage(issue.id, alice.token, { status: 'will_not_fix', expires_in_days: 1 })).body.reviewDate).to.equal(daysAfter(T0, 1));
    });

    it('[S1.4.5-09] will_not_fix with a justification answers 400 and writes nothing', async () => {
      const issue = await newIssue();
      const r = await refusedWithNothingWritten(400, () => triage(issue.id, alice.token, { status: 'will_not_fix', expires_in_days: 30, justification: 'code_not_reachable' }));
      expect(r.body.detail).to.match(/justification/);
    });

    it('refuses other malformed decisions with 400 and writes nothing (expires_in_days off will_not_fix, a justification off not_affected, pending_approval, unknown fields)', async () => {
      const issue = await newIssue();
      for (const body of [
        { status: 'affected', expires_in_days: 10 },
        { status: 'fixed', justification: 'code_not_present' },
        { status: 'not_affected', justification: 'because I say so' },
        { status: 'pending_approval' },
        { status: 'sleeping' },
        { status: 'fixed', expiresInDays: 10 },
        {},
      ]) await refusedWithNothingWritten(400, () => triage(issue.id, alice.token, body));
    });

    it('[S1.4.5-10] [S1.7-06] If-Match with the ETag read before a scan resolved the issue answers 409 issue-changed-meanwhile and writes nothing', async () => {
      const issue = await newIssue();
      expect(await resolve(issue)).to.deep.include({ resolved: 1 });
      const r = await refusedWithNothingWritten(409, () => triage(issue.id, alice.token, { status: 'fixed' }, { 'If-Match': issue.etag }));
      expect(r.body.type).to.equal('urn:vigil:problem:issue-changed-meanwhile');
      const fresh = await get(issue.id);
      expect(fresh.body.triageStatus).to.equal('under_review');
      const ok = await triage(issue.id, alice.token, { status: 'fixed' }, { 'If-Match': fresh.headers.get('etag')! });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.body.triageStatus).to.equal('fixed');
    });

    it('[S1.4.5-10] [S1.7-06] If-Match with the ETag read before another decision answers 409 issue-changed-meanwhile and writes nothing', async () => {
      const issue = await newIssue();
      expect((await triage(issue.id, bob.token, { status: 'affected' }, { 'If-Match': issue.etag })).status).to.equal(200);
      const r = await refusedWithNothingWritten(409, () => triage(issue.id, alice.token, { status: 'not_affected' }, { 'If-Match': issue.etag }));
      expect(r.body.type).to.equal('urn:vigil:problem:issue-changed-meanwhile');
      expect((await get(issue.id)).body.triageStatus).to.equal('affected');
    });

    it('[S1.4.5-10] a re-import that reopens the issue also makes an older ETag stale; weak and bare forms of a current ETag are accepted', async () => {
      const issue = await newIssue();
      await resolve(issue);
      const resolvedEtag = (await get(issue.id)).headers.get('etag')!;
      await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId: issue.ruleId }], { toolKey: issue.toolKey });
      const stale = await refusedWithNothingWritten(409, () => triage(issue.id, alice.token, { status: 'affected' }, { 'If-Match': resolvedEtag }));
      expect(stale.body.type).to.equal('urn:vigil:problem:issue-changed-meanwhile');
      const current = (await get(issue.id)).headers.get('etag')!;
      const weak = await triage(issue.id, alice.token, { status: 'affected' }, { 'If-Match': `W/${current}` });
      expect(weak.status, weak.text).to.equal(200);
      const bare = await triage(issue.id, alice.token, { status: 'under_review' }, { 'If-Match': weak.headers.get('etag')!.replace(/"/g, '') });
      expect(bare.status, bare.text).to.equal(200);
      expect((await triage(issue.id, alice.token, { status: 'fixed' }, { 'If-Match': '*' })).status).to.equal(200);
    });

    it('answers 400 for an If-Match that is no ETag Vigil gives, and writes nothing', async () => {
      const issue = await newIssue();
      const r = await refusedWithNothingWritten(400, () => triage(issue.id, alice.token, { status: 'fixed' }, { 'If-Match': '"abc"' }));
      expect(r.body.detail).to.contain('If-Match');
    });

    it('answers 404 alike for an unknown issue and one on a target the caller does not see, and writes nothing', async () => {
      const unseen = await newIssue(hidden);
      const a = await refusedWithNothingWritten(404, () => triage(unseen.id, alice.token, { status: 'fixed' }));
      const b = await refusedWithNothingWritten(404, () => triage(99_999_999, alice.token, { status: 'fixed' }));
      expect(a.body.detail.replace(/\d+/g, 'N')).to.equal(b.body.detail.replace(/\d+/g, 'N'));
      const seen = await newIssue();
      await refusedWithNothingWritten(404, () => triage(seen.id, outsider.token, { status: 'fixed' }));
    });

    it('answers 403 to an account that does not write (reader, auditor, platform governor), 401 without a credential; nothing written', async () => {
      const issue = await newIssue();
      const r = await refusedWithNothingWritten(403, () => triage(issue.id, reader.token, { status: 'fixed' }));
      expect(r.body.detail).to.match(/account that writes/);
      for (const roles of [['auditor'], ['platform_governor']]) {
        const who = await v.account(roles);
        await refusedWithNothingWritten(403, () => triage(issue.id, who.token, { status: 'fixed' }));
      }
      await refusedWithNothingWritten(401, () => v.request('POST', `/issues/${issue.id}/triage`, { body: { status: 'fixed' } }));
    });

    it('answers 403 "may not call" to an integration key, whatever its scopes (no triage scope exists)', async () => {
      const issue = await newIssue();
      const key = await v.key(admin, { name: 'ci', scopes: ['read', 'scan'] });
      const r = await refusedWithNothingWritten(403, () => v.request('POST', `/issues/${issue.id}/triage`, { apiKey: key.key, body: { status: 'fixed' } }));
      expect(r.body.detail).to.match(/may not call/);
      expect((await v.request('GET', `/issues/${issue.id}`, { apiKey: key.key })).status).to.equal(200);
    });
  });

  describe('four-eyes (setting triage_four_eyes)', () => {
    before(() => setFourEyes(true));
    after(() => setFourEyes(false));

    it('[S1.3.2-01] [S1.2.3-02] a settling status is requested: pending_approval with triageRequestedStatus, from any status', async () => {
      for (const [status, extra] of [['not_affected', { justification: 'code_not_present' }], ['will_not_fix', { expires_in_days: 90 }], ['fixed', {}]] as const) {
        const issue = await newIssue();
        await triage(issue.id, alice.token, { status: 'affected' });
        const r = await triage(issue.id, alice.token, { status, ...extra });
        expect(r.status, r.text).to.equal(200);
        expect(r.body).to.include({ triageStatus: 'pending_approval', triageRequestedStatus: status });
      }
    });

    it('[S1.3.2-01] a settled issue re-triaged with a settling status goes to pending_approval too', async () => {
      const issue = await newIssue();
      await setFourEyes(false);
      await triage(issue.id, alice.token, { status: 'fixed' });
      await setFourEyes(true);
      const r = await triage(issue.id, alice.token, { status: 'not_affected' });
      expect(r.body).to.include({ triageStatus: 'pending_approval', triageRequestedStatus: 'not_affected' });
    });

    it('[S1.2.3-03] an unsettling status is set directly under four-eyes, with triageRequestedStatus null', async () => {
      const issue = await newIssue();
      const r = await triage(issue.id, alice.token, { status: 'affected' });
      expect(r.body).to.include({ triageStatus: 'affected', triageRequestedStatus: null });
    });

    it('[S1.3.2-02] the request keeps justification, comment, review date and the requested status (history and GET /exceptions)', async () => {
      const wnf = await newIssue();
      const r = await triage(wnf.id, alice.token, { status: 'will_not_fix', expires_in_days: 45, comment: 'risk accepted by product' });
      expect(last(r.body)).to.include({ type: 'TriageRequested', actor: alice.id, requestedStatus: 'will_not_fix', reviewDate: daysAfter(T0, 45), comment: 'risk accepted by product' });
      const na = await newIssue();
      await triage(na.id, alice.token, { status: 'not_affected', justification: 'protected_by_mitigating_control', comment: 'WAF rule 12' });
      const list = await v.request('GET', `/exceptions?repository_id=${repo}&state=requested&limit=1000`, { token: bob.token });
      const byId = new Map(list.body.map((e: { issueId: number }) => [e.issueId, e]));
      expect(byId.get(wnf.id)).to.include({ granted: null, requested_status: 'will_not_fix', reviewDate: daysAfter(T0, 45), comment: 'risk accepted by product', requestedBy: alice.id });
      expect(byId.get(na.id)).to.include({ granted: null, requested_status: 'not_affected', justification: 'protected_by_mitigating_control', comment: 'WAF rule 12' });
    });

    it('[S1.3.2-05] [S1.7-05] approval naming another status answers 409 triage-approval-differs with requestedStatus; nothing written', async () => {
      const issue = await newIssue();
      await triage(issue.id, alice.token, { status: 'will_not_fix', expires_in_days: 30 });
      const r = await refusedWithNothingWritten(409, () => approve(issue.id, bob.token, 'fixed'));
      expect(r.body).to.include({ type: 'urn:vigil:problem:triage-approval-differs', requestedStatus: 'will_not_fix' });
      expect((await get(issue.id)).body.triageStatus).to.equal('pending_approval');
    });

    it('[S1.3.2-04] refuses the requester approving their own request (403), whatever status; nothing written', async () => {
      const issue = await newIssue();
      await triage(issue.id, alice.token, { status: 'fixed' });
      const r = await refusedWithNothingWritten(403, () => approve(issue.id, alice.token, 'fixed'));
      expect(r.body.detail).to.match(/someone other/);
      await refusedWithNothingWritten(403, () => approve(issue.id, alice.token, 'not_affected'));
      await refusedWithNothingWritten(403, () => approve(issue.id, reader.token, 'fixed'));
    });

    it('[S1.3.2-04] [S1.2.3-03] another account approving with the requested status settles it; the request\'s review date and comment hold', async () => {
      const issue = await newIssue();
      await triage(issue.id, alice.token, { status: 'will_not_fix', expires_in_days: 60, comment: 'vendor fix in Q3' });
      const r = await approve(issue.id, bob.token, 'will_not_fix');
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.include({ triageStatus: 'will_not_fix', triageRequestedStatus: null, reviewDate: daysAfter(T0, 60) });
      expect(r.headers.get('etag')).to.equal(`"${r.body.revision}"`);
      expect(last(r.body)).to.include({ type: 'TriageApproved', actor: bob.id, status: 'will_not_fix', comment: 'vendor fix in Q3', reviewDate: daysAfter(T0, 60) });
      const ex = (await v.request('GET', `/exceptions?repository_id=${repo}&state=granted&limit=1000`, { token: bob.token })).body.find((e: { issueId: number }) => e.issueId === issue.id);
      expect(ex).to.include({ granted: 'will_not_fix', requested_status: null, requestedBy: alice.id });
    });

    it('answers 409 (no type) to an approval or refusal when nothing waits for approval; nothing written', async () => {
      const issue = await newIssue();
      const a = await refusedWithNothingWritten(409, () => approve(issue.id, bob.token, 'fixed'));
      expect(a.body).not.to.have.property('type');
      await refusedWithNothingWritten(409, () => turnDown(issue.id, bob.token, { status: 'affected' }));
    });

    it('[S1.3.2-06] turning a request down moves it to affected or under_review as given, with the comment in the history', async () => {
      for (const status of ['affected', 'under_review']) {
        const issue = await newIssue();
        await triage(issue.id, alice.token, { status: 'not_affected', justification: 'code_not_present' });
        const r = await turnDown(issue.id, bob.token, { status, comment: 'the code is there' });
        expect(r.status, r.text).to.equal(200);
        expect(r.body).to.include({ triageStatus: status, triageRequestedStatus: null, justification: null });
        expect(last(r.body)).to.include({ type: 'TriageRefused', actor: bob.id, status, requestedStatus: 'not_affected', comment: 'the code is there' });
      }
    });

    it('[S1.3.2-06] a turn-down to any other status answers 400 and writes nothing; the requester may withdraw their own request', async () => {
      const issue = await newIssue();
      await triage(issue.id, alice.token, { status: 'fixed' });
      for (const status of ['fixed', 'not_affected', 'pending_approval', 'will_not_fix']) await refusedWithNothingWritten(400, () => turnDown(issue.id, bob.token, { status }));
      expect((await turnDown(issue.id, alice.token, { status: 'affected' })).body.triageStatus).to.equal('affected');
    });

    it('[S1.4.5-10] an approval with a stale If-Match answers 409 issue-changed-meanwhile', async () => {
      const issue = await newIssue();
      const requested = await triage(issue.id, alice.token, { status: 'fixed' });
      await resolve(issue);
      const r = await refusedWithNothingWritten(409, () => v.request('POST', `/issues/${issue.id}/triage-approval`, { token: bob.token, body: { status: 'fixed' }, headers: { 'If-Match': requested.headers.get('etag')! } }));
      expect(r.body.type).to.equal('urn:vigil:problem:issue-changed-meanwhile');
    });
  });

  describe('POST /issues/triage (several issues)', () => {
    it('[S1.4.5-02] decides each issue on its own stream and answers 200 with an outcome per issue: decided, unknown, unseen, stale', async () => {
      const a = await newIssue();
      const b = await newIssue();
      const stale = await newIssue();
      const unseen = await newIssue(hidden);
      await triage(stale.id, bob.token, { status: 'affected' });
      const r = await v.request('POST', '/issues/triage', {
        token: alice.token,
        body: {
          issues: [{ id: a.id, ifMatch: a.etag }, { id: b.id }, { id: stale.id, ifMatch: stale.etag }, { id: unseen.id }, { id: 99_999_998 }],
          status: 'will_not_fix', expires_in_days: 14, comment: 'batch acceptance',
        },
      });
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.include({ decided: 2, refused: 3 });
      expect(r.body.results.map((x: { id: number; outcome: number }) => [x.id, x.outcome])).to.deep.equal([[a.id, 200], [b.id, 200], [stale.id, 409], [unseen.id, 404], [99_999_998, 404]]);
      const [ra, , rs, ru] = r.body.results;
      expect(ra).to.include({ triageStatus: 'will_not_fix', triageRequestedStatus: null, type: null, detail: null });
      expect(ra.etag).to.equal((await get(a.id)).headers.get('etag'));
      expect(rs).to.include({ type: 'urn:vigil:problem:issue-changed-meanwhile', triageStatus: null, etag: null });
      expect(rs.detail).to.be.a('string');
      expect(ru.detail).to.match(/No issue/);
      expect((await get(a.id)).body).to.include({ triageStatus: 'will_not_fix', reviewDate: daysAfter(T0, 14) });
      expect((await get(stale.id)).body.triageStatus).to.equal('affected');
      expect((await get(unseen.id)).body.triageStatus).to.equal('under_review');
    });

    it('[S1.4.5-02] [S1.3.2-01] takes plain ids, and under four-eyes requests each settling decision', async () => {
      await setFourEyes(true);
      try {
        const a = await newIssue();
        const b = await newIssue();
        const r = await v.request('POST', '/issues/triage', { token: alice.token, body: { ids: [a.id, b.id], status: 'not_affected', justification: 'code_not_reachable' } });
        expect(r.status, r.text).to.equal(200);
        expect(r.body.results.map((x: { outcome: number; triageStatus: string; triageRequestedStatus: string }) => [x.outcome, x.triageStatus, x.triageRequestedStatus]))
          .to.deep.equal([[200, 'pending_approval', 'not_affected'], [200, 'pending_approval', 'not_affected']]);
        const approved = await approve(b.id, bob.token, 'not_affected');
        expect(approved.body).to.include({ triageStatus: 'not_affected', justification: 'code_not_reachable' });
      } finally {
        await setFourEyes(false);
      }
    });

    it('[S1.4.5-07] [S1.4.5-09] refuses the whole request with 400 and writes nothing for a bad decision, a bad ifMatch, a repeated id, or both or neither of issues and ids', async () => {
      const a = await newIssue();
      const b = await newIssue();
      for (const body of [
        { ids: [a.id, b.id], status: 'will_not_fix' },
        { ids: [a.id], status: 'will_not_fix', expires_in_days: 10, justification: 'code_not_present' },
        { ids: [a.id], status: 'will_not_fix', expires_in_days: 3651 },
        { issues: [{ id: a.id, ifMatch: 'nonsense' }, { id: b.id }], status: 'fixed' },
        { ids: [a.id, a.id], status: 'fixed' },
        { ids: [a.id], issues: [{ id: b.id }], status: 'fixed' },
        { status: 'fixed' },
        { ids: [], status: 'fixed' },
      ]) await refusedWithNothingWritten(400, () => v.request('POST', '/issues/triage', { token: alice.token, body }));
    });

    it('answers 403 to a reader and to a key, and writes nothing', async () => {
      const a = await newIssue();
      await refusedWithNothingWritten(403, () => v.request('POST', '/issues/triage', { token: reader.token, body: { ids: [a.id], status: 'fixed' } }));
      const key = await v.key(admin, { name: 'bulk', scopes: ['read'] });
      await refusedWithNothingWritten(403, () => v.request('POST', '/issues/triage', { apiKey: key.key, body: { ids: [a.id], status: 'fixed' } }));
    });
  });

  describe('GET /exceptions and POST /exceptions/{issueId}/reviews', () => {
    it('[S1.4.5-05] lists granted and requested exceptions of open issues the caller sees, with granted and requested_status per entry', async () => {
      const granted = await newIssue();
      await triage(granted.id, alice.token, { status: 'not_affected', justification: 'code_not_present', comment: 'removed in 2.0' });
      const resolvedOne = await newIssue();
      await triage(resolvedOne.id, alice.token, { status: 'fixed' });
      await resolve(resolvedOne);
      const plain = await newIssue();
      const unseen = await newIssue(hidden);
      await triage(unseen.id, admin, { status: 'fixed' });

      const mine = await v.request('GET', '/exceptions?limit=1000', { token: reader.token });
      expect(mine.status, mine.text).to.equal(200);
      const ids = mine.body.map((e: { issueId: number }) => e.issueId);
      expect(ids).to.include(granted.id);
      expect(ids).not.to.include.members([resolvedOne.id, plain.id, unseen.id]);
      const entry = mine.body.find((e: { issueId: number }) => e.issueId === granted.id);
      expect(entry).to.include({ granted: 'not_affected', requested_status: null, justification: 'code_not_present', comment: 'removed in 2.0', reviewDate: null, requestedBy: alice.id, repositoryId: repo });
      expect(entry.etag).to.equal((await get(granted.id)).headers.get('etag'));
      expect((await v.request('GET', '/exceptions', { token: outsider.token })).body).to.deep.equal([]);
      const all = await v.request('GET', '/exceptions?limit=1000', { token: admin });
      expect(all.body.map((e: { issueId: number }) => e.issueId)).to.include(unseen.id);
      const key = await v.key(admin, { name: 'reader-key', scopes: ['read'] });
      expect((await v.request('GET', '/exceptions', { apiKey: key.key })).status).to.equal(200);
    });

    it('[S1.4.5-05] pages with limit and a Link to the next page', async () => {
      for (let i = 0; i < 3; i++) await triage((await newIssue()).id, alice.token, { status: 'fixed' });
      const first = await v.request('GET', `/exceptions?repository_id=${repo}&limit=2`, { token: admin });
      expect(first.body).to.have.length(2);
      const link = first.headers.get('link')!;
      expect(link).to.match(/rel="next"/);
      const next = await v.request('GET', link.slice(1, link.indexOf('>')), { token: admin });
      expect(next.body[0].issueId).to.be.greaterThan(first.body[1].issueId);
    });

    it('[S1.4.5-06] confirm keeps the exception and records the review; extend moves a will_not_fix review date later', async () => {
      const issue = await newIssue();
      await triage(issue.id, alice.token, { status: 'will_not_fix', expires_in_days: 10 });
      const confirmed = await review(issue.id, bob.token, { action: 'confirm', comment: 'still accepted' });
      expect(confirmed.status, confirmed.text).to.equal(200);
      expect(confirmed.body).to.include({ triageStatus: 'will_not_fix', reviewDate: daysAfter(T0, 10) });
      expect(last(confirmed.body)).to.include({ type: 'ExceptionConfirmed', actor: bob.id, comment: 'still accepted' });
      const extended = await review(issue.id, bob.token, { action: 'extend', expires_in_days: 40, comment: 'another sprint' });
      expect(extended.status, extended.text).to.equal(200);
      expect(extended.body.reviewDate).to.equal(daysAfter(T0, 40));
      expect(extended.headers.get('etag')).to.equal(`"${extended.body.revision}"`);
      expect(last(extended.body)).to.include({ type: 'ExceptionExtended', reviewDate: daysAfter(T0, 40), comment: 'another sprint' });
    });

    it('[S1.4.5-06] revoke sends the issue back to under_review and off the exception list', async () => {
      const issue = await newIssue();
      await triage(issue.id, alice.token, { status: 'not_affected' });
      const r = await review(issue.id, bob.token, { action: 'revoke', comment: 'the mitigation is gone' });
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.include({ triageStatus: 'under_review', justification: null });
      const list = await v.request('GET', '/exceptions?limit=1000', { token: admin });
      expect(list.body.map((e: { issueId: number }) => e.issueId)).not.to.include(issue.id);
    });

    it('[S1.4.5-06] refuses reviews that do not apply, writing nothing: shorter or missing extension (400/409), extension of a non-will_not_fix (409), expires_in_days on confirm (400), no exception (409), unseen (404), reader (403)', async () => {
      const wnf = await newIssue();
      await triage(wnf.id, alice.token, { status: 'will_not_fix', expires_in_days: 100 });
      await refusedWithNothingWritten(409, () => review(wnf.id, bob.token, { action: 'extend', expires_in_days: 50 }));
      await refusedWithNothingWritten(400, () => review(wnf.id, bob.token, { action: 'extend' }));
      await refusedWithNothingWritten(400, () => review(wnf.id, bob.token, { action: 'extend', expires_in_days: 3651 }));
      await refusedWithNothingWritten(400, () => review(wnf.id, bob.token, { action: 'confirm', expires_in_days: 10 }));
      await refusedWithNothingWritten(400, () => review(wnf.id, bob.token, { action: 'forget' }));
      await refusedWithNothingWritten(403, () => review(wnf.id, reader.token, { action: 'confirm' }));
      const fixed = await newIssue();
      await triage(fixed.id, alice.token, { status: 'fixed' });
      await refusedWithNothingWritten(409, () => review(fixed.id, bob.token, { action: 'extend', expires_in_days: 10 }));
      const open = await newIssue();
      await refusedWithNothingWritten(409, () => review(open.id, bob.token, { action: 'confirm' }));
      const unseen = await newIssue(hidden);
      await triage(unseen.id, admin, { status: 'fixed' });
      await refusedWithNothingWritten(404, () => review(unseen.id, bob.token, { action: 'revoke' }));
    });

    it('[S1.4.5-06] under four-eyes the account an exception rests on may not confirm or extend it (403); another may', async () => {
      const issue = await newIssue();
      await triage(issue.id, alice.token, { status: 'will_not_fix', expires_in_days: 10 });
      await setFourEyes(true);
      try {
        await refusedWithNothingWritten(403, () => review(issue.id, alice.token, { action: 'confirm' }));
        await refusedWithNothingWritten(403, () => review(issue.id, alice.token, { action: 'extend', expires_in_days: 20 }));
        expect((await review(issue.id, bob.token, { action: 'extend', expires_in_days: 20 })).status).to.equal(200);
      } finally {
        await setFourEyes(false);
      }
    });
  });

  describe('remediation deadline on the issue view', () => {
    it('[S1.2.3-18] is first seen plus the severity\'s window, from the settings remediation_days_*', async () => {
      const high = await newIssue(repo, 'high');
      const critical = await newIssue(repo, 'critical');
      expect((await get(high.id)).body.remediationDeadline).to.equal(daysAfter(T0, 30));
      expect((await get(critical.id)).body.remediationDeadline).to.equal(daysAfter(T0, 7));
      await v.request('PATCH', '/settings', { token: admin, body: { remediation_days_high: 12 } });
      try {
        expect((await get(high.id)).body.remediationDeadline).to.equal(daysAfter(T0, 12));
        const list = await v.request('GET', `/issues?repository_id=${repo}&limit=1000`, { token: admin });
        expect(list.body.find((i: { id: number }) => i.id === high.id).remediationDeadline).to.equal(daysAfter(T0, 12));
      } finally {
        await v.request('PATCH', '/settings', { token: admin, body: { remediation_days_high: 30 } });
      }
    });
  });
});

describe('Triage review dates: the maintenance scheduler (spec 1 §3.2)', function () {
  let v: RunningVigil;
  let clock: ManualClock;
  let n = 0;

  before(async () => {
    clock = new ManualClock(new Date(T0));
    v = await startVigil({ clock });
  });
  after(async () => { await v.stop(); });

  /** Sessions end as the clock moves: every step signs in again. */
  async function newIssue(token: string, repo: number) {
    const ruleId = `DUE-${++n}`;
    await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId }], { toolKey: `scanner:due-${n}` });
    const list = await v.request('GET', `/issues?repository_id=${repo}&limit=1000`, { token });
    return list.body.find((i: { ruleId: string }) => i.ruleId === ruleId).id as number;
  }
  const get = (id: number, token: string) => v.request('GET', `/issues/${id}`, { token });
  const wontFix = (id: number, token: string, days: number) => v.request('POST', `/issues/${id}/triage`, { token, body: { status: 'will_not_fix', expires_in_days: days } });

  it('[S1.3.2-07] a will_not_fix issue whose review date is reached moves to under_review, with actor null; nothing earlier, nothing twice', async () => {
    const admin = await v.signIn();
    const lead = await v.account(['administrator']);
    const repo = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/triage/due' } })).body.id;
    const due = await newIssue(admin, repo);
    const later = await newIssue(admin, repo);
    const extended = await newIssue(admin, repo);
    expect((await wontFix(due, admin, 30)).status).to.equal(200);
    expect((await wontFix(later, admin, 31)).status).to.equal(200);
    expect((await wontFix(extended, admin, 30)).status).to.equal(200);
    expect((await v.request('POST', `/exceptions/${extended}/reviews`, { token: lead.token, body: { action: 'extend', expires_in_days: 60 } })).status).to.equal(200);

    clock.set(new Date(Date.parse(daysAfter(T0, 30)) - 1));
    let before = await v.eventCount();
    expect(await v.services.reviewScheduler.runOnce()).to.deep.equal({ expired: 0, failed: 0 });
    expect(await v.eventCount()).to.equal(before);

    clock.set(daysAfter(T0, 30));
    before = await v.eventCount();
    expect(await v.services.reviewScheduler.runOnce()).to.deep.equal({ expired: 1, failed: 0 });
    expect(await v.eventCount()).to.equal(before + 1);
    const token = await v.signIn();
    const after = await get(due, token);
    expect(after.body).to.include({ triageStatus: 'under_review', reviewDate: null, triageRequestedStatus: null });
    const entry = after.body.history[after.body.history.length - 1];
    expect(entry).to.include({ type: 'TriageReviewExpired', actor: null, at: daysAfter(T0, 30) });
    expect((await get(later, token)).body.triageStatus).to.equal('will_not_fix');
    expect((await get(extended, token)).body).to.include({ triageStatus: 'will_not_fix', reviewDate: daysAfter(T0, 60) });

    before = await v.eventCount();
    expect(await v.services.reviewScheduler.runOnce()).to.deep.equal({ expired: 0, failed: 0 });
    expect(await v.eventCount()).to.equal(before);

    clock.set(daysAfter(T0, 61));
    expect(await v.services.reviewScheduler.runOnce()).to.deep.equal({ expired: 2, failed: 0 });
    const exceptions = await v.request('GET', '/exceptions?limit=1000', { token: await v.signIn() });
    expect(exceptions.body).to.deep.equal([]);
  });

  it('[S1.3.2-07] start() runs the scheduler at once and on its interval; stop() ends it', async () => {
    const admin = await v.signIn();
    const repo = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/triage/interval' } })).body.id;
    const issue = await newIssue(admin, repo);
    expect((await wontFix(issue, admin, 1)).status).to.equal(200);
    clock.advance(DAY);
    const token = await v.signIn();
    v.services.reviewScheduler.start(60_000);
    try {
      let status = '';
      for (let i = 0; i < 50 && status !== 'under_review'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await get(issue, token)).body.triageStatus;
      }
      expect(status).to.equal('under_review');
    } finally {
      await v.services.reviewScheduler.stop();
    }
  });
});
