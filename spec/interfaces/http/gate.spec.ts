import { expect } from 'chai';
import { KEPT_VIOLATIONS } from '../../../domain/gate/verdict-event';
import { ManualClock } from '../../../application/ports/clock';
import { gateProjection } from '../../../projections/gate/projection';
import { seedFindings } from '../../support/backlog';
import { describeEachEngine } from '../../support/databases';
import { RunningVigil, startVigil } from '../../support/vigil';
import { streams } from '../../../domain/shared/streams';

type Kind = 'repository' | 'container';

type Outcome = 'completed' | 'failed' | 'pending' | 'scanning';
let scanIds = 900_000;

/**
 * A scan of the target reaching `outcome`, through the scans context's own events on a `scan-<id>`
 * stream, which its projection turns into a row of the scans read model the gate reads.
 */
async function scanned(v: RunningVigil, kind: Kind, id: number, outcome: Outcome = 'completed', at = v.services.clock.now().toISOString()) {
  const ctx = { actor: null, now: v.services.clock.now() };
  const of = { id: ++scanIds, targetKind: kind, targetId: id };
  const events: Array<{ type: string; data: unknown }> = [{ type: 'ScanRequested', data: { ...of, trigger: 'manual', requiresCredential: false, requestedBy: null, requestedAt: at } }];
  if (outcome !== 'pending') events.push({ type: 'ScanClaimed', data: { ...of, attempt: 1, worker: 'spec', claimedAt: at, leaseExpiresAt: at } });
  if (outcome === 'completed') {
    events.push({ type: 'ScanCompleted', data: { ...of, attempt: 1, worker: 'spec', completedAt: at, duration: 'PT1S', steps: {}, detectedLanguages: null, createdCount: 0, resolvedCount: 0, reopenedCount: 0, disallowedLicences: [] } });
  }
  if (outcome === 'failed') events.push({ type: 'ScanFailed', data: { ...of, attempt: 1, kind: 'permanent', reason: 'repository absent', failedAt: at, lapsed: false } });
  await v.services.commands.appendAll([{ stream: `scan-${of.id}`, events, expectedRevision: 'no_stream' }], ctx);
}

/** The ids of the open issues of a target by identifier. */
async function issueIds(v: RunningVigil, token: string, repositoryId: number): Promise<Record<string, number>> {
  const list = await v.request('GET', `/issues?repository_id=${repositoryId}&limit=1000`, { token });
  return Object.fromEntries(list.body.map((i: { identifier: string; id: number }) => [i.identifier, i.id]));
}

describe('Gate: POST /gate and the verdict register', function () {
  this.timeout(60_000);
  let v: RunningVigil;
  let clock: ManualClock;
  let admin: string;
  let scanKey: string;
  let readKey: string;
  let repo: number;

  const repository = async (url: string, extra: Record<string, unknown> = {}) => {
    const r = await v.request('POST', '/repositories', { token: admin, body: { url, ...extra } });
    if (r.status !== 201) throw new Error(r.text);
    return r.body.id as number;
  };
  const gate = (key: string, body: unknown) => {
    clock.advance(1000);
    return v.request('POST', '/gate', { apiKey: key, body });
  };
  /** Asserts the call was refused with `status` and wrote nothing. */
  const refused = async (status: number, call: () => Promise<{ status: number; body: any }>) => {
    const before = await v.eventCount();
    const r = await call();
    expect(r.status, JSON.stringify(r.body)).to.equal(status);
    expect(await v.eventCount()).to.equal(before);
    return r;
  };

  before(async () => {
    clock = new ManualClock(new Date('2026-03-01T08:00:00.000Z'));
    v = await startVigil({ clock });
    admin = await v.signIn();
    scanKey = (await v.key(admin, { name: 'ci-gate', scopes: ['scan'] })).key;
    readKey = (await v.key(admin, { name: 'reader', scopes: ['read'] })).key;
    repo = await repository('https://git.example/gate/app');
  });
  after(async () => { await v.stop(); });

  describe('refusals write nothing', () => {
    it('[S1.7-26] no key or a bad key answers 401', async () => {
      await refused(401, () => v.request('POST', '/gate', { body: { repositoryId: repo } }));
      await refused(401, () => v.request('POST', '/gate', { apiKey: 'vgl_k_not-a-key', body: { repositoryId: repo } }));
      await refused(401, () => v.request('POST', '/gate', { token: 'vgl_s_not-a-session', body: { repositoryId: repo } }));
    });

    it('[S1.4.1-07] [S1.7-27] a key without scope scan answers 403 naming the scope', async () => {
      const r = await refused(403, () => gate(readKey, { repositoryId: repo }));
      expect(r.body.detail).to.match(/scope scan/);
    });

    it('[S1.4.1-08] [S1.5-09] [S1.5-10] [S1.7-27] an auditor\'s or platform governor\'s key answers 403, whatever else the account holds', async () => {
      for (const role of ['auditor', 'platform_governor']) {
        // Keys carry scan only for accounts that write; the account becomes an auditor (governor) afterwards.
        const person = await v.account(['writer']);
        const key = (await v.key(person.token, { name: 'gate', scopes: ['scan'] })).key;
        expect((await v.request('PATCH', `/accounts/${person.id}`, { token: admin, body: { roles: [role] } })).status).to.equal(200);
        const r = await refused(403, () => gate(key, { repositoryId: repo }));
        expect(r.body.detail).to.match(/auditor's or platform governor's/);
        // Both roles at once: still an auditor's (governor's) key.
        const both = await v.account(['writer', role]);
        const bothKey = (await v.key(both.token, { name: 'gate', scopes: ['scan'] })).key;
        await refused(403, () => gate(bothKey, { repositoryId: repo }));
      }
    });

    it('[S1.4.1-08] a reader\'s session answers 403: the account does not write', async () => {
      const reader = await v.account(['reader']);
      await refused(403, () => v.request('POST', '/gate', { token: reader.token, body: { repositoryId: repo } }));
    });

    it('[S1.7-28] an unknown target, one outside the key\'s restriction and one the account does not see answer 404 alike', async () => {
      const other = await repository('https://git.example/gate/other');
      const restricted = (await v.key(admin, { name: 'only-other', scopes: ['scan'], repositoryId: other })).key;
      await refused(404, () => gate(scanKey, { repositoryId: 999_999 }));
      await refused(404, () => gate(scanKey, { containerId: 999_999 }));
      await refused(404, () => gate(scanKey, { repositoryUrl: 'https://git.example/gate/nowhere' }));
      await refused(404, () => gate(restricted, { repositoryId: repo }));
      await refused(404, () => gate(restricted, { repositoryUrl: 'https://git.example/gate/app' }));
      const writer = await v.account(['writer']);
      const writerKey = (await v.key(writer.token, { name: 'gate', scopes: ['scan'] })).key;
      const unseen = await refused(404, () => gate(writerKey, { repositoryId: repo }));
      const unknown = await refused(404, () => gate(writerKey, { repositoryId: 999_999 }));
      expect(unseen.body.title).to.equal(unknown.body.title);
    });

    it('[S1.7-10] a bad severity answers 400 Unknown severity', async () => {
      for (const severity of ['severe', 'HIGH', '', 5, true]) {
        const r = await refused(400, () => gate(scanKey, { repositoryId: repo, policy: { severity } }));
        expect(r.body.detail).to.equal('Unknown severity');
      }
      // Even before the target is looked at.
      const r = await refused(400, () => gate(scanKey, { repositoryId: 999_999, policy: { severity: 'urgent' } }));
      expect(r.body.detail).to.equal('Unknown severity');
    });

    it('[S1.4.1-06] a target named no way or two ways, or an unknown policy flag, answers 400', async () => {
      await refused(400, () => gate(scanKey, {}));
      await refused(400, () => gate(scanKey, { repositoryId: repo, containerId: 1 }));
      await refused(400, () => gate(scanKey, { repositoryId: repo, branch: 'main' }));
      await refused(400, () => gate(scanKey, { repositoryId: repo, policy: { include_everything: true } }));
      await refused(400, () => gate(scanKey, { repositoryId: repo, policy: { include_triaged: 'yes' } }));
    });
  });

  describe('observation', () => {
    it('[S1.7-30] [S1.7-29] [S1.4.1-09] [S1.2.8-01] [S1.2.8-04] a target never scanned fails with 200 and the observation violation first, rule and reason only', async () => {
      const fresh = await repository('https://git.example/gate/never-scanned');
      await seedFindings(v, { kind: 'repository', id: fresh }, [{ ruleId: 'CVE-2026-0001', severity: 'critical' }]);
      const r = await gate(scanKey, { repositoryId: fresh });
      expect(r.status).to.equal(200);
      expect(r.body.passed).to.equal(false);
      expect(r.body.violations).to.be.an('array').with.length(2);
      expect(r.body.violations[0]).to.deep.equal({ rule: 'observation', reason: 'No scan of the target has completed' });
      expect(r.body.violations[1]).to.include({ rule: 'severity', identifier: 'CVE-2026-0001' });
    });

    it('[S1.7-32] no policy flag relaxes the observation violation', async () => {
      const fresh = await repository('https://git.example/gate/never-scanned-relaxed');
      const r = await gate(scanKey, { repositoryId: fresh, policy: { include_triaged: true, fixable_only: true, severity: 'critical', include_plugins: true } });
      expect(r.status).to.equal(200);
      expect(r.body).to.include({ passed: false });
      expect(r.body.violations).to.deep.equal([{ rule: 'observation', reason: 'No scan of the target has completed' }]);
    });

    it('[S1.7-31] [S1.7-33] the newest finished scan failing fails the gate; a scan only started counts for nothing', async () => {
      const target = await repository('https://git.example/gate/flaky');
      await scanned(v, 'repository', target, 'completed');
      expect((await gate(scanKey, { repositoryId: target })).body).to.deep.include({ passed: true, violations: [] });
      await scanned(v, 'repository', target, 'failed');
      await scanned(v, 'repository', target, 'scanning');
      await scanned(v, 'repository', target, 'pending');
      const failed = await gate(scanKey, { repositoryId: target });
      expect(failed.body.passed).to.equal(false);
      expect(failed.body.violations[0]).to.deep.equal({ rule: 'observation', reason: 'The newest finished scan of the target failed' });
      await scanned(v, 'repository', target, 'completed');
      expect((await gate(scanKey, { repositoryId: target })).body.passed).to.equal(true);
    });
  });

  describe('findings under a policy', () => {
    let target: number;
    let ids: Record<string, number>;

    before(async () => {
      target = await repository('https://git.example/gate/policy');
      await scanned(v, 'repository', target);
      await seedFindings(v, { kind: 'repository', id: target }, [
        { ruleId: 'CVE-C', severity: 'critical', packageName: 'openssl', fixable: true },
        { ruleId: 'CVE-H', severity: 'high', packageName: 'log4j-core', fixable: false },
        { ruleId: 'CVE-M', severity: 'medium', packageName: 'lodash', fixable: true },
        { ruleId: 'CVE-L', severity: 'low', packageName: null },
        { ruleId: 'CVE-K', severity: 'low', packageName: 'struts', fixable: true },
      ]);
      await seedFindings(v, { kind: 'repository', id: target }, [{ ruleId: 'SEMGREP-1', severity: 'critical', path: 'src/a.ts' }], { toolKey: 'import:ci/semgrep', type: 'imported' });
      await seedFindings(v, { kind: 'repository', id: target }, [{ ruleId: 'PLUGIN-1', severity: 'high', path: 'src/b.ts' }], { toolKey: 'plugin:licence-check', type: 'plugin' });
      ids = await issueIds(v, admin, target);
      // KEV enrichment is not built yet: the spec marks the column as the enrichment will.
      await v.database.db.knex('issues').where({ id: ids['CVE-K'] }).update({ kev: true });
    });

    it('[S1.2.8-02] [S1.2.8-03] default policy: kev first, then severity from critical down, each naming issue, identifier, severity and package', async () => {
      const r = await gate(scanKey, { repositoryId: target });
      expect(r.status).to.equal(200);
      expect(r.body.passed).to.equal(false);
      expect(r.body.policy).to.deep.equal({ include_triaged: false, fixable_only: false, severity: 'high', include_plugins: false });
      const shape = r.body.violations.map((x: any) => ({ rule: x.rule, issueId: x.issueId, identifier: x.identifier, severity: x.severity, package: x.package }));
      expect(shape).to.deep.equal([
        { rule: 'kev', issueId: ids['CVE-K'], identifier: 'CVE-K', severity: 'low', package: 'struts' },
        { rule: 'severity', issueId: ids['CVE-C'], identifier: 'CVE-C', severity: 'critical', package: 'openssl' },
        { rule: 'severity', issueId: ids['CVE-H'], identifier: 'CVE-H', severity: 'high', package: 'log4j-core' },
      ]);
      for (const x of r.body.violations) expect(x.reason).to.be.a('string').and.not.equal('');
    });

    it('the severity threshold moves the line; a target whose issues sit below it passes', async () => {
      const critical = await gate(scanKey, { repositoryId: target, policy: { severity: 'critical' } });
      expect(critical.body.violations.map((x: any) => x.identifier)).to.deep.equal(['CVE-K', 'CVE-C']);
      const low = await gate(scanKey, { repositoryId: target, policy: { severity: 'low' } });
      expect(low.body.violations.map((x: any) => x.identifier)).to.deep.equal(['CVE-K', 'CVE-C', 'CVE-H', 'CVE-M', 'CVE-L']);
      const quiet = await repository('https://git.example/gate/quiet');
      await scanned(v, 'repository', quiet);
      await seedFindings(v, { kind: 'repository', id: quiet }, [{ ruleId: 'CVE-Q', severity: 'medium' }]);
      const pass = await gate(scanKey, { repositoryId: quiet });
      expect(pass.status).to.equal(200);
      expect(pass.body).to.deep.include({ passed: true, violations: [] });
    });

    it('[S1.2.3-16] imported and plugin issues fail the gate only with include_plugins', async () => {
      const without = await gate(scanKey, { repositoryId: target, policy: { include_plugins: false } });
      expect(without.body.violations.map((x: any) => x.identifier)).to.deep.equal(['CVE-K', 'CVE-C', 'CVE-H']);
      const withPlugins = await gate(scanKey, { repositoryId: target, policy: { include_plugins: true } });
      expect(withPlugins.body.violations.map((x: any) => x.identifier)).to.deep.equal(['CVE-K', 'CVE-C', 'SEMGREP-1', 'CVE-H', 'PLUGIN-1']);
    });

    it('fixable_only keeps the fixable issues (KEV-listed ones too)', async () => {
      const r = await gate(scanKey, { repositoryId: target, policy: { fixable_only: true } });
      expect(r.body.violations.map((x: any) => x.identifier)).to.deep.equal(['CVE-K', 'CVE-C']);
    });

    it('settled issues count only with include_triaged', async () => {
      const triaged = await v.request('POST', `/issues/${ids['CVE-C']}/triage`, { token: admin, body: { status: 'not_affected', justification: 'code_not_reachable' } });
      expect(triaged.status, triaged.text).to.equal(200);
      const without = await gate(scanKey, { repositoryId: target });
      expect(without.body.violations.map((x: any) => x.identifier)).to.deep.equal(['CVE-K', 'CVE-H']);
      const withTriaged = await gate(scanKey, { repositoryId: target, policy: { include_triaged: true } });
      expect(withTriaged.body.violations.map((x: any) => x.identifier)).to.deep.equal(['CVE-K', 'CVE-C', 'CVE-H']);
    });

    it('repeated calls never answer from an older backlog: a new finding, a triage and a resolution count on the next call', async () => {
      const busy = await repository('https://git.example/gate/repeated');
      await scanned(v, 'repository', busy);
      await seedFindings(v, { kind: 'repository', id: busy }, [{ ruleId: 'CVE-1', severity: 'low' }]);
      for (let i = 0; i < 3; i++) expect((await gate(scanKey, { repositoryId: busy })).body.passed).to.equal(true);
      await seedFindings(v, { kind: 'repository', id: busy }, [{ ruleId: 'CVE-1', severity: 'low' }, { ruleId: 'CVE-2', severity: 'critical' }]);
      const failed = await gate(scanKey, { repositoryId: busy });
      expect(failed.body.violations.map((x: any) => x.identifier)).to.deep.equal(['CVE-2']);
      const issue = failed.body.violations[0].issueId;
      expect((await v.request('POST', `/issues/${issue}/triage`, { token: admin, body: { status: 'not_affected', justification: 'code_not_reachable' } })).status).to.equal(200);
      expect((await gate(scanKey, { repositoryId: busy })).body.passed).to.equal(true);
      expect((await gate(scanKey, { repositoryId: busy, policy: { include_triaged: true } })).body.passed).to.equal(false);
      await seedFindings(v, { kind: 'repository', id: busy }, [{ ruleId: 'CVE-1', severity: 'low' }]);
      expect((await gate(scanKey, { repositoryId: busy, policy: { include_triaged: true } })).body.passed).to.equal(true);
    });

    it('repeated calls on a standing backlog answer the same text, in the documented member order', async () => {
      const a = await gate(scanKey, { repositoryId: target, policy: { severity: 'low' } });
      const b = await gate(scanKey, { repositoryId: target, policy: { severity: 'low' } });
      expect(Object.keys(a.body)).to.deep.equal(['id', 'targetKind', 'targetId', 'passed', 'violations', 'policy', 'at']);
      expect(a.text).to.equal(JSON.stringify(a.body));
      expect(b.body.id).to.not.equal(a.body.id);
      expect(b.body.violations).to.deep.equal(a.body.violations);
      expect(b.text.slice(b.text.indexOf('"violations"'), b.text.indexOf('"policy"'))).to.equal(a.text.slice(a.text.indexOf('"violations"'), a.text.indexOf('"policy"')));
    });

    it('[S1.7-31] a scan that fails after a passing verdict counts on the next call though the backlog stands still', async () => {
      const steady = await repository('https://git.example/gate/steady');
      await scanned(v, 'repository', steady, 'completed', '2026-02-01T00:00:00.000Z');
      await seedFindings(v, { kind: 'repository', id: steady }, [{ ruleId: 'CVE-S', severity: 'low' }]);
      for (let i = 0; i < 2; i++) expect((await gate(scanKey, { repositoryId: steady })).body.passed).to.equal(true);
      await scanned(v, 'repository', steady, 'failed', '2026-02-02T00:00:00.000Z');
      const after = await gate(scanKey, { repositoryId: steady });
      expect(after.body.violations).to.deep.equal([{ rule: 'observation', reason: 'The newest finished scan of the target failed' }]);
    });

    it('resolved issues no longer count', async () => {
      const gone = await repository('https://git.example/gate/resolved');
      await scanned(v, 'repository', gone);
      await seedFindings(v, { kind: 'repository', id: gone }, [{ ruleId: 'CVE-R', severity: 'critical' }]);
      expect((await gate(scanKey, { repositoryId: gone })).body.passed).to.equal(false);
      await seedFindings(v, { kind: 'repository', id: gone }, []);
      expect((await gate(scanKey, { repositoryId: gone })).body.passed).to.equal(true);
    });
  });

  describe('naming the target', () => {
    it('[S1.4.1-06] {repositoryUrl, branch} finds the repository by identity, branch defaulting to main', async () => {
      const main = await repository('https://git.example/Gate/Url.git');
      const release = await repository('https://git.example/gate/url', { branch: 'release' });
      await scanned(v, 'repository', main);
      const byUrl = await gate(scanKey, { repositoryUrl: 'ssh://git@git.example/gate/url' });
      expect(byUrl.status).to.equal(200);
      expect(byUrl.body).to.include({ targetKind: 'repository', targetId: main, passed: true });
      const byBranch = await gate(scanKey, { repositoryUrl: 'https://git.example/gate/url/', branch: 'release' });
      expect(byBranch.body).to.include({ targetId: release, passed: false });
      await refused(404, () => gate(scanKey, { repositoryUrl: 'https://git.example/gate/url', branch: 'develop' }));
      await refused(400, () => gate(scanKey, { repositoryUrl: 'not a url' }));
    });

    it('[S1.4.1-06] {containerId} gates a container image', async () => {
      const c = await v.request('POST', '/containers', { token: admin, body: { image: 'registry.example/gate/api:1.0' } });
      expect(c.status).to.equal(201);
      const r = await gate(scanKey, { containerId: c.body.id });
      expect(r.status).to.equal(200);
      expect(r.body).to.include({ targetKind: 'container', targetId: c.body.id, passed: false });
      await scanned(v, 'container', c.body.id);
      await seedFindings(v, { kind: 'container', id: c.body.id }, [{ ruleId: 'CVE-IMG', severity: 'high', packageName: 'glibc' }]);
      const after = await gate(scanKey, { containerId: c.body.id });
      expect(after.body.violations).to.have.length(1);
      expect(after.body.violations[0]).to.include({ rule: 'severity', identifier: 'CVE-IMG', package: 'glibc' });
    });

    it('a key restricted to the target gates it; a writer\'s session on a granted target gates it too (decision)', async () => {
      const project = await v.request('POST', '/projects', { token: admin, body: { name: 'Gate project' } });
      const team = await v.request('POST', '/teams', { token: admin, body: { name: 'gate-team' } });
      const writer = await v.account(['writer']);
      await v.request('POST', `/teams/${team.body.id}/members`, { token: admin, body: { accountId: writer.id } });
      await v.request('POST', `/teams/${team.body.id}/grants`, { token: admin, body: { kind: 'project', id: project.body.id } });
      const granted = await repository('https://git.example/gate/granted', { projectId: project.body.id });
      const restricted = (await v.key(writer.token, { name: 'granted-only', scopes: ['scan'], repositoryId: granted })).key;
      expect((await gate(restricted, { repositoryId: granted })).status).to.equal(200);
      clock.advance(1000);
      const bySession = await v.request('POST', '/gate', { token: writer.token, body: { repositoryId: granted } });
      expect(bySession.status).to.equal(200);
      const row = await v.database.db.knex('gate_verdicts').where({ id: bySession.body.id }).first();
      expect(Number(row.account_id)).to.equal(writer.id);
      expect(row.api_key_id).to.equal(null);
    });
  });

  describe('the verdict register', () => {
    it('[S1.2.8-06] [S1.1-10] every call writes exactly one row; GET /gate/verdicts answers newest first', async () => {
      const target = await repository('https://git.example/gate/register');
      const before = await v.database.db.knex('gate_verdicts').count({ n: '*' }).first();
      const answers = [];
      for (const severity of ['high', 'critical', 'low']) answers.push((await gate(scanKey, { repositoryId: target, policy: { severity } })).body);
      await refused(400, () => gate(scanKey, { repositoryId: target, policy: { severity: 'bad' } }));
      const after = await v.database.db.knex('gate_verdicts').count({ n: '*' }).first();
      expect(Number(after!.n) - Number(before!.n)).to.equal(3);
      const list = await v.request('GET', `/gate/verdicts?target_kind=repository&target_id=${target}`, { apiKey: readKey });
      expect(list.status).to.equal(200);
      expect(list.body.map((x: any) => x.id)).to.deep.equal(answers.map((a) => a.id).reverse());
      const newest = list.body[0];
      expect(newest).to.deep.include({
        targetKind: 'repository', targetId: target, repositoryId: target, passed: false, violationCount: 1, violationsOmitted: 0,
        policy: { include_triaged: false, fixable_only: false, severity: 'low', include_plugins: false }, at: answers[2].at,
      });
      expect(newest.violations).to.deep.equal([{ rule: 'observation', reason: 'No scan of the target has completed' }]);
      expect(newest.apiKeyId).to.be.a('number');
    });

    it('filters by target_kind, target_id and since, and pages with limit and Link rel="next"', async () => {
      const target = await repository('https://git.example/gate/pages');
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push((await gate(scanKey, { repositoryId: target })).body);
      const since = await v.request('GET', `/gate/verdicts?target_id=${target}&since=${encodeURIComponent(answers[3].at)}`, { apiKey: readKey });
      expect(since.body.map((x: any) => x.id)).to.deep.equal([answers[4].id, answers[3].id]);
      const first = await v.request('GET', `/gate/verdicts?target_kind=repository&target_id=${target}&limit=2`, { apiKey: readKey });
      expect(first.body.map((x: any) => x.id)).to.deep.equal([answers[4].id, answers[3].id]);
      const link = first.headers.get('link');
      expect(link).to.match(/rel="next"/);
      const next = /<([^>]+)>/.exec(link!)![1];
      const second = await v.request('GET', next, { apiKey: readKey });
      expect(second.body.map((x: any) => x.id)).to.deep.equal([answers[2].id, answers[1].id]);
      const last = await v.request('GET', /<([^>]+)>/.exec(second.headers.get('link')!)![1], { apiKey: readKey });
      expect(last.body.map((x: any) => x.id)).to.deep.equal([answers[0].id]);
      expect(last.headers.get('link')).to.equal(null);
      const containers = await v.request('GET', `/gate/verdicts?target_kind=container`, { apiKey: readKey });
      expect(containers.body.length).to.be.greaterThan(0);
      expect(containers.body.every((x: any) => x.targetKind === 'container')).to.equal(true);
      expect((await v.request('GET', '/gate/verdicts?since=yesterday', { apiKey: readKey })).status).to.equal(400);
      expect((await v.request('GET', '/gate/verdicts', { apiKey: scanKey })).status).to.equal(403);
      expect((await v.request('GET', '/gate/verdicts')).status).to.equal(401);
    });

    it('shows only verdicts on targets the caller sees', async () => {
      const stranger = await v.account(['writer']);
      expect((await v.request('GET', '/gate/verdicts', { token: stranger.token })).body).to.deep.equal([]);
      const other = await repository('https://git.example/gate/seen-by-key');
      await gate(scanKey, { repositoryId: other });
      const restricted = (await v.key(admin, { name: 'read-other', scopes: ['read'], repositoryId: other })).key;
      const mine = await v.request('GET', '/gate/verdicts', { apiKey: restricted });
      expect(mine.body.length).to.equal(1);
      expect(mine.body[0].targetId).to.equal(other);
    });

    it('[S1.6-06] a failed verdict records VGL-SEC-003 SECURITY_GATE_FAILED; a passed one does not', async () => {
      const target = await repository('https://git.example/gate/siem');
      const failed = await gate(scanKey, { repositoryId: target });
      await scanned(v, 'repository', target);
      const passed = await gate(scanKey, { repositoryId: target });
      const [failedEvent] = await v.services.store.readStream<any>(streams.gateVerdict(failed.body.id));
      expect(failedEvent.type).to.equal('GateVerdictGiven');
      expect(failedEvent.data).to.deep.include({ passed: false, targetKind: 'repository', targetId: target, siem: { signature: 'VGL-SEC-003', name: 'SECURITY_GATE_FAILED' } });
      expect(failedEvent.data.keyId).to.be.a('number');
      expect(failedEvent.data.accountId).to.be.a('number');
      const [passedEvent] = await v.services.store.readStream<any>(streams.gateVerdict(passed.body.id));
      expect(passedEvent.data.passed).to.equal(true);
      expect(passedEvent.data).not.to.have.property('siem');
      const audited = await v.database.db.knex('audit_log').where({ stream_id: streams.gateVerdict(failed.body.id) }).first();
      expect(audited.type).to.equal('GateVerdictGiven');
      const listed = await v.request('GET', `/gate/verdicts?target_id=${target}`, { apiKey: readKey });
      expect(listed.body.map((x: any) => x.siem)).to.deep.equal([null, { signature: 'VGL-SEC-003', name: 'SECURITY_GATE_FAILED' }]);
    });

    it('answers every violation while the event and the row keep the first ones and count the rest', async () => {
      const target = await repository('https://git.example/gate/many');
      await scanned(v, 'repository', target);
      const many = KEPT_VIOLATIONS + 50;
      await seedFindings(v, { kind: 'repository', id: target }, Array.from({ length: many }, (_, i) => ({ ruleId: `CVE-2026-${10000 + i}`, severity: 'high' as const })));
      const r = await gate(scanKey, { repositoryId: target });
      expect(r.body.violations).to.have.length(many);
      const listed = await v.request('GET', `/gate/verdicts?target_id=${target}`, { apiKey: readKey });
      expect(listed.body[0]).to.include({ violationCount: many, violationsOmitted: 50 });
      expect(listed.body[0].counts).to.deep.equal({ observation: 0, kev: 0, severity: many, coverage: 0 });
      expect(listed.body[0].violations).to.deep.equal(r.body.violations.slice(0, KEPT_VIOLATIONS));
    });

    it('a rebuild of the register gives the same rows', async () => {
      const rows = async () => v.database.db.knex('gate_verdicts').orderBy('id');
      const live = await rows();
      await v.services.projections.stop();
      await v.services.projections.rebuild([gateProjection]);
      v.services.projections.start();
      expect(await rows()).to.deep.equal(live);
    });
  });
});

describe('Gate: observation from the scans read model', function () {
  this.timeout(60_000);
  let v: RunningVigil;
  let key: string;
  const repos: number[] = [];

  before(async function () {
    v = await startVigil();
    if (!(await v.database.db.knex.schema.hasTable('scans'))) {
      await v.stop();
      this.skip(); // the scans context is not in this tree; the interim stream is covered above
    }
    const admin = await v.signIn();
    key = (await v.key(admin, { name: 'gate', scopes: ['scan'] })).key;
    for (const url of ['https://git.example/s/one', 'https://git.example/s/two', 'https://git.example/s/three']) {
      const r = await v.request('POST', '/repositories', { token: admin, body: { url } });
      expect(r.status).to.equal(201);
      repos.push(r.body.id);
    }
  });
  after(async () => { if (repos.length) await v.stop(); });

  /** Gates the n-th repository (0-based). */
  const verdict = async (n: number) => (await v.request('POST', '/gate', { apiKey: key, body: { repositoryId: repos[n] } })).body;

  it('[S1.7-33] pending and scanning scans are no examination', async () => {
    await scanned(v, 'repository', repos[0], 'pending');
    await scanned(v, 'repository', repos[0], 'scanning');
    expect((await verdict(0)).violations[0]).to.deep.equal({ rule: 'observation', reason: 'No scan of the target has completed' });
  });

  it('[S1.7-31] the newest finished scan decides (by its finish, not its request), and a later running one does not rescue a failure', async () => {
    await scanned(v, 'repository', repos[1], 'completed', '2026-01-01T00:00:00.000Z');
    await scanned(v, 'repository', repos[1], 'failed', '2026-01-02T00:00:00.000Z');
    await scanned(v, 'repository', repos[1], 'scanning');
    expect((await verdict(1)).violations[0]).to.deep.equal({ rule: 'observation', reason: 'The newest finished scan of the target failed' });
    // Requested later, finished earlier: the completed scan finished last and decides.
    await scanned(v, 'repository', repos[2], 'failed', '2026-01-01T00:00:00.000Z');
    await scanned(v, 'repository', repos[2], 'completed', '2026-01-02T00:00:00.000Z');
    await scanned(v, 'repository', repos[2], 'failed', '2026-01-01T12:00:00.000Z');
    await scanned(v, 'repository', repos[2], 'pending');
    expect(await verdict(2)).to.deep.include({ passed: true, violations: [] });
  });
});

describeEachEngine('Gate on each engine', ({ engine, get }) => {
  it('[S1.7-30] [S1.2.8-03] [S1.2.8-06] gates, records and lists verdicts', async function () {
    this.timeout(60_000);
    const v = await startVigil({ engine, database: get() });
    try {
      const admin = await v.signIn();
      const key = (await v.key(admin, { name: 'gate', scopes: ['scan', 'read'] })).key;
      const repo = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/engines/gate' } })).body.id;
      const never = await v.request('POST', '/gate', { apiKey: key, body: { repositoryUrl: 'git@git.example:engines/gate.git' } });
      expect(never.body.violations).to.deep.equal([{ rule: 'observation', reason: 'No scan of the target has completed' }]);
      await scanned(v, 'repository', repo);
      await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId: 'CVE-E1', severity: 'critical', packageName: 'libc', fixable: true }, { ruleId: 'CVE-E2', severity: 'low' }]);
      const failed = await v.request('POST', '/gate', { apiKey: key, body: { repositoryId: repo, policy: { fixable_only: true } } });
      expect(failed.body.passed).to.equal(false);
      expect(failed.body.violations).to.have.length(1);
      expect(failed.body.violations[0]).to.include({ rule: 'severity', identifier: 'CVE-E1', severity: 'critical', package: 'libc' });
      const list = await v.request('GET', `/gate/verdicts?target_kind=repository&target_id=${repo}&since=${encodeURIComponent('2000-01-01T00:00:00Z')}&limit=1`, { apiKey: key });
      expect(list.body, list.text).to.have.length(1);
      expect(list.body[0]).to.deep.include({ id: failed.body.id, passed: false, violationCount: 1, policy: { include_triaged: false, fixable_only: true, severity: 'high', include_plugins: false } });
      expect(list.headers.get('link')).to.contain(`before=${failed.body.id}`);
    } finally {
      await v.stop({ keepDatabase: true });
    }
  });
});
