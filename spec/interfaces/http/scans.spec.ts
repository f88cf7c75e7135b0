import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { ManualClock } from '../../../application/ports/clock';
import { ScanFailure } from '../../../application/ports/scanning';
import { FakeExecutor, FakeNormaliser, result, step } from '../../application/scans/fakes';
import { RunningVigil, startVigil } from '../../support/vigil';

const MINUTE = 60_000;

/** Scans over HTTP with the built-in worker driven by the spec (runOnce) and a fake executor at the port. */
describe('Scans: requests, GET /scans, the built-in worker (spec 1 §2.2, §3.1, §4.1)', function () {
  this.timeout(60_000);
  let v: RunningVigil;
  let clock: ManualClock;
  let executor: FakeExecutor;
  let admin: string;
  let n = 0;

  before(async () => {
    clock = new ManualClock(new Date('2026-01-05T09:00:00.000Z'));
    executor = new FakeExecutor();
    // With an ENCRYPTION_KEY the built-in worker holds credentials (without one, S1.3.1-20 scans wait: credential-scans.spec.ts).
    v = await startVigil({ clock, env: { ENCRYPTION_KEY: randomBytes(32).toString('base64') }, overrides: { scanExecutor: executor, normaliser: new FakeNormaliser() } });
    admin = await v.signIn();
  });
  after(async () => { await v.stop(); });

  /** The worker claims every due scan: runs what earlier specs left waiting to the end, so each worker spec starts with an empty queue. */
  const drain = async () => {
    executor.reset();
    for (let i = 0; i < 10; i++) {
      clock.advance(30 * MINUTE);
      if ((await v.services.scanWorker.runOnce()).length === 0) break;
    }
    expect(await v.database.db.knex('scans').whereIn('status', ['pending', 'scanning']).count({ n: '*' }).first()).to.deep.equal({ n: 0 });
    executor.reset();
    admin = await v.signIn();
  };

  const repository = async (body: Record<string, unknown> = {}) => {
    const r = await v.request('POST', '/repositories', { token: admin, body: { url: `https://git.example/scans/repo-${++n}`, scanManualOnly: true, ...body } });
    expect(r.status, r.text).to.equal(201);
    return r.body.id as number;
  };
  const scanOf = async (id: number) => (await v.request('GET', `/scans/${id}`, { token: admin })).body.scan;
  const requestScan = async (repo: number) => {
    const r = await v.request('POST', `/repositories/${repo}/scan`, { token: admin, body: {} });
    expect(r.status, r.text).to.equal(200);
    return r.body;
  };
  const openIssues = async (repo: number) => (await v.request('GET', `/issues?repository_id=${repo}&status=open&limit=1000`, { token: admin })).body
    .map((i: { ruleId: string }) => i.ruleId).sort();

  describe('requests', () => {
    it('[S1.4.1-01] [S1.4.1-02] [S1.3.1-01] [S1.2.2-01] [S1.2.2-02] [S1.2.2-03] POST /repositories/{id}/scan with {} answers 200 with the pending scan and its id', async () => {
      const repo = await repository();
      const r = await v.request('POST', `/repositories/${repo}/scan`, { token: admin, body: {} });
      expect(r.status).to.equal(200);
      expect(r.body.id).to.be.a('number').and.satisfy(Number.isInteger);
      expect(r.body).to.include({ status: 'pending', error: null, attempts: 0, trigger: 'manual', targetKind: 'repository', targetId: repo, repositoryId: repo });
      expect(r.body.requestedAt).to.equal(clock.now().toISOString());
    });

    it('[S1.4.1-03] [S1.3.1-02] a second request while one waits answers 409 naming it, and writes nothing', async () => {
      const repo = await repository();
      const first = await requestScan(repo);
      const before = await v.eventCount();
      const second = await v.request('POST', `/repositories/${repo}/scan`, { token: admin, body: {} });
      expect(second.status).to.equal(409);
      expect(second.headers.get('content-type')).to.match(/application\/problem\+json/);
      expect(second.body.scanId).to.equal(first.id);
      expect(second.body.detail).to.match(new RegExp(`Scan ${first.id}`));
      expect(await v.eventCount()).to.equal(before);
    });

    it('[S1.3.1-02] [S1.3.1-01] two requests at the same instant: one 200, one 409', async () => {
      const repo = await repository();
      const answers = await Promise.all([0, 1, 2].map(() => v.request('POST', `/repositories/${repo}/scan`, { token: admin, body: {} })));
      expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 409, 409]);
    });

    it('[S1.4.1-01] a container image is scanned through POST /containers/{id}/scan', async () => {
      const c = await v.request('POST', '/containers', { token: admin, body: { image: `registry.example/scans/app:${++n}`, scanManualOnly: true } });
      const r = await v.request('POST', `/containers/${c.body.id}/scan`, { token: admin, body: {} });
      expect(r.status).to.equal(200);
      expect(r.body).to.include({ targetKind: 'container', containerId: c.body.id, repositoryId: null, status: 'pending' });
    });

    it("[S1.4.1-01] triggering needs an administrator (session or key with scope scan); others 403, unknown target 404, a body other than {} 400", async () => {
      const repo = await repository();
      const writer = await v.account(['writer']);
      expect((await v.request('POST', `/repositories/${repo}/scan`, { token: writer.token, body: {} })).status).to.equal(403);
      const writerKey = await v.key(writer.token, { name: 'w', scopes: ['scan'] });
      const refused = await v.request('POST', `/repositories/${repo}/scan`, { apiKey: writerKey.key, body: {} });
      expect(refused.status).to.equal(403);
      expect(refused.body.detail).to.match(/administrator's act/);
      const readKey = await v.key(admin, { name: 'r', scopes: ['read'] });
      const noScope = await v.request('POST', `/repositories/${repo}/scan`, { apiKey: readKey.key, body: {} });
      expect(noScope.status).to.equal(403);
      expect(noScope.body.detail).to.match(/scope scan/);
      expect((await v.request('POST', `/repositories/${repo}/scan`, { body: {} })).status).to.equal(401);
      expect((await v.request('POST', '/repositories/999999/scan', { token: admin, body: {} })).status).to.equal(404);
      expect((await v.request('POST', `/repositories/${repo}/scan`, { token: admin, body: { branch: 'x' } })).status).to.equal(400);
      const scanKey = await v.key(admin, { name: 's', scopes: ['scan'] });
      expect((await v.request('POST', `/repositories/${repo}/scan`, { apiKey: scanKey.key, body: {} })).status).to.equal(200);
      const restricted = await v.key(admin, { name: 'rs', scopes: ['scan'], repositoryId: repo });
      const other = await repository();
      expect((await v.request('POST', `/repositories/${other}/scan`, { apiKey: restricted.key, body: {} })).status).to.equal(404);
    });
  });

  describe('GET /scans and /scans/{id}', () => {
    it('[S1.4.1-05] [S1.2.2-02] [S1.2.2-03] [S1.2.2-04] GET /scans/{id} answers {scan: {id, status, error, attempts, ...}}; 404 when unknown', async () => {
      const repo = await repository();
      const scan = await requestScan(repo);
      const r = await v.request('GET', `/scans/${scan.id}`, { token: admin });
      expect(r.status).to.equal(200);
      expect(r.body.scan).to.include({ id: scan.id, status: 'pending', error: null, attempts: 0 });
      expect((await v.request('GET', '/scans/99999999', { token: admin })).status).to.equal(404);
    });

    it('[S1.4.1-04] GET /scans?repo_id=&limit= answers the repository\'s scans newest first, at most limit, with Link rel="next"', async () => {
      await drain();
      const repo = await repository();
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) {
        executor.returns(result({}));
        ids.push((await requestScan(repo)).id);
        await v.services.scanWorker.runOnce();
      }
      const page = await v.request('GET', `/scans?repo_id=${repo}&limit=2`, { token: admin });
      expect(page.status).to.equal(200);
      expect(page.body.map((s: { id: number }) => s.id)).to.deep.equal([ids[2], ids[1]]);
      expect(page.headers.get('link')).to.equal(`</api/v1/scans?repo_id=${repo}&limit=2&before=${ids[1]}>; rel="next"`);
      const rest = await v.request('GET', `/scans?repo_id=${repo}&limit=2&before=${ids[1]}`, { token: admin });
      expect(rest.body.map((s: { id: number }) => s.id)).to.deep.equal([ids[0]]);
      expect(rest.headers.get('link')).to.equal(null);
    });

    it('[S1.4.1-04] [S1.4.1-05] scope read is needed; a caller sees only the scans of targets it sees (404 alike for unseen)', async () => {
      const repo = await repository();
      const scan = await requestScan(repo);
      const scanOnly = await v.key(admin, { name: 'so', scopes: ['scan'] });
      expect((await v.request('GET', '/scans', { apiKey: scanOnly.key })).status).to.equal(403);
      expect((await v.request('GET', `/scans/${scan.id}`, { apiKey: scanOnly.key })).status).to.equal(403);
      const reader = await v.account(['reader']);
      expect((await v.request('GET', `/scans/${scan.id}`, { token: reader.token })).status).to.equal(404);
      expect((await v.request('GET', `/scans?repo_id=${repo}`, { token: reader.token })).body).to.deep.equal([]);
      expect((await v.request('GET', '/scans', { token: reader.token })).body).to.deep.equal([]);
      const restricted = await v.key(admin, { name: 'rr', scopes: ['read'], repositoryId: repo });
      const seen = await v.request('GET', '/scans', { apiKey: restricted.key });
      expect(seen.body.length).to.be.greaterThan(0);
      expect(seen.body.every((s: { repositoryId: number }) => s.repositoryId === repo)).to.equal(true);
    });
  });

  describe('the built-in worker', () => {
    beforeEach(drain);
    it('[S1.3.1-03] [S1.3.1-07] [S1.3.1-21] claims, runs the executor with the target, and completes the scan; the repository records its languages', async () => {
      const repo = await repository({ branch: 'develop', subPath: 'svc' });
      const scan = await requestScan(repo);
      executor.returns(result({ sbom: step('syft', []), vulnerabilities: step('grype', [{ ruleId: 'CVE-2026-1' }]) }, ['TypeScript', 'yml', 'cobol']));
      expect(await v.services.scanWorker.runOnce()).to.deep.equal(['completed']);
      expect(executor.jobs.at(-1)).to.deep.equal({
        scanId: scan.id, attempt: 1, target: { kind: 'repository', id: repo, url: `https://git.example/scans/repo-${n}`, branch: 'develop', subPath: 'svc' },
      });
      const done = await scanOf(scan.id);
      expect(done).to.include({ status: 'completed', error: null, attempts: 1, createdCount: 1, duration: 'PT1M30S', leaseExpiresAt: null });
      expect(done.steps).to.deep.equal({
        sbom: { tool: 'syft', toolVersion: '1.0', findings: 0 }, vulnerabilities: { tool: 'grype', toolVersion: '1.0', findings: 1 }, secrets: null, iac: null, sast: null,
      });
      expect(done.detectedLanguages).to.deep.equal(['typescript', 'yaml']);
      expect(done.finishedAt).to.equal(clock.now().toISOString());
      expect((await v.request('GET', `/repositories/${repo}`, { token: admin })).body.detectedLanguages).to.deep.equal(['typescript', 'yaml']);
      expect(await openIssues(repo)).to.deep.equal(['CVE-2026-1']);
    });

    it('[S1.3.1-08] [S1.3.1-09] [S1.3.1-10] steps present resolve their backlog ([] = ran, found nothing); a null or missing step resolves nothing', async () => {
      const repo = await repository();
      await requestScan(repo);
      executor.returns(result({
        vulnerabilities: step('grype', [{ ruleId: 'CVE-1' }, { ruleId: 'CVE-2' }]), secrets: step('gitleaks', [{ ruleId: 'aws-key', path: 'a.env' }]),
        iac: step('checkov', [{ ruleId: 'CKV_1', path: 'main.tf' }]), sast: step('semgrep', [{ ruleId: 'sqli', path: 'db.ts' }]),
      }));
      await v.services.scanWorker.runOnce();
      expect(await openIssues(repo)).to.deep.equal(['CKV_1', 'CVE-1', 'CVE-2', 'aws-key', 'sqli']);

      const second = await requestScan(repo);
      // vulnerabilities: CVE-2 gone; secrets: ran, found nothing; iac: did not run (null); sast: missing.
      executor.returns(result({ vulnerabilities: step('grype', [{ ruleId: 'CVE-1' }]), secrets: step('gitleaks', []), iac: null }));
      await v.services.scanWorker.runOnce();
      expect(await openIssues(repo)).to.deep.equal(['CKV_1', 'CVE-1', 'sqli']);
      expect(await scanOf(second.id)).to.include({ status: 'completed', createdCount: 0, resolvedCount: 2, reopenedCount: 0 });
    });

    it('[S1.3.1-16] [S1.3.1-17] [S1.3.1-18] [S1.2.2-04] transient failures: pending again after 1 minute, then 5 minutes; the third attempt fails the scan', async () => {
      const repo = await repository();
      const scan = await requestScan(repo);
      executor.throws(new ScanFailure('transient', 'network unreachable')).throws(new ScanFailure('transient', 'HTTP 503 from git.example'))
        .throws(new Error('docker daemon silent'));
      const t0 = clock.now().getTime();

      expect(await v.services.scanWorker.runOnce()).to.deep.equal(['retry']);
      let s = await scanOf(scan.id);
      expect(s).to.include({ status: 'pending', attempts: 1, error: null, lastError: 'network unreachable', notBefore: new Date(t0 + MINUTE).toISOString() });
      clock.advance(MINUTE - 1);
      expect(await v.services.scanWorker.runOnce(), 'not claimable before 1 minute').to.deep.equal([]);
      clock.advance(1);
      const t1 = clock.now().getTime();
      expect(await v.services.scanWorker.runOnce()).to.deep.equal(['retry']);
      expect(executor.jobs.at(-1)!.attempt).to.equal(2);
      s = await scanOf(scan.id);
      expect(s).to.include({ status: 'pending', attempts: 2, notBefore: new Date(t1 + 5 * MINUTE).toISOString() });
      clock.advance(5 * MINUTE - 1);
      expect(await v.services.scanWorker.runOnce(), 'not claimable before 5 more minutes').to.deep.equal([]);
      clock.advance(1);
      expect(await v.services.scanWorker.runOnce()).to.deep.equal(['failed']);
      expect(executor.jobs.at(-1)!.attempt).to.equal(3);
      s = await scanOf(scan.id);
      expect(s).to.include({ status: 'failed', attempts: 3, error: 'unclassified: docker daemon silent', errorKind: 'transient' });
      clock.advance(60 * MINUTE);
      expect(await v.services.scanWorker.runOnce(), 'a failed scan is never claimed again').to.deep.equal([]);
    });

    it('[S1.3.1-11] [S1.3.1-13] [S1.3.1-15] [S1.2.2-07] [S1.6-07] a permanent failure fails the scan at once with its reason on the scan, audited AGENT_SCAN_FAILED (no SIEM event)', async () => {
      const repo = await repository();
      const scan = await requestScan(repo);
      executor.throws(new ScanFailure('permanent', "fatal: Remote branch 'main' not found in upstream origin"));
      expect(await v.services.scanWorker.runOnce()).to.deep.equal(['failed']);
      const s = await scanOf(scan.id);
      expect(s).to.include({ status: 'failed', attempts: 1, errorKind: 'permanent', error: "fatal: Remote branch 'main' not found in upstream origin" });
      const event = await v.database.db.knex('events').where({ stream_id: `scan-${scan.id}`, type: 'ScanFailed' }).first();
      expect(JSON.parse(event.data)).to.include({ audit: 'AGENT_SCAN_FAILED', kind: 'permanent' });
      expect(await v.database.db.knex('audit_log').where({ event_id: event.event_id, type: 'ScanFailed' }).first()).to.not.equal(undefined);
      // [S1.6-07] the audit log names it AGENT_SCAN_FAILED, and no SIEM event is queued for it
      const listed = await v.request('GET', '/audit-log?operation=AGENT_SCAN_FAILED&limit=500', { token: await v.signIn() });
      expect(listed.status).to.equal(200);
      const entry = listed.body.find((e: { eventId?: string; type: string; target: string }) => e.type === 'ScanFailed' && e.target === `scan-${scan.id}`);
      expect(entry, JSON.stringify(listed.body).slice(0, 500)).to.include({ operation: 'AGENT_SCAN_FAILED' });
      expect(await v.database.db.knex('siem_outbox').where({ event_id: event.event_id }).first()).to.equal(undefined);
      // A failed scan no longer waits: a new request is accepted.
      await requestScan(repo);
    });

    it('[S1.3.1-16] a result the normaliser cannot read is a transient failure; nothing is ingested', async () => {
      const repo = await repository();
      const scan = await requestScan(repo);
      executor.returns(result({ vulnerabilities: step('grype', { not: 'an array' }) }));
      expect(await v.services.scanWorker.runOnce()).to.deep.equal(['retry']);
      expect(await scanOf(scan.id)).to.include({ status: 'pending', attempts: 1, lastError: 'grype output is unreadable' });
      expect(await openIssues(repo)).to.deep.equal([]);
    });

    it('[S1.2.2-06] [S1.3.1-19] [S1.8.2-17] a lease lives 20 minutes after the last heartbeat; a lapse is a transient failure and the late result is discarded', async () => {
      const repo = await repository();
      const scan = await requestScan(repo);
      executor.holds();
      const claimedAt = clock.now().getTime();
      const [run] = await v.services.scanWorker.tick();
      const held = executor.held.at(-1)!;
      expect(await scanOf(scan.id)).to.include({ status: 'scanning', attempts: 1, leaseExpiresAt: new Date(claimedAt + 20 * MINUTE).toISOString() });

      clock.advance(15 * MINUTE);
      await held.heartbeat();
      const renewedAt = clock.now().getTime();
      expect((await scanOf(scan.id)).leaseExpiresAt).to.equal(new Date(renewedAt + 20 * MINUTE).toISOString());

      clock.advance(20 * MINUTE - 1);
      expect(await v.services.scanLifecycle.lapseExpired()).to.deep.equal({ lapsed: 0, voided: 0 });
      expect((await scanOf(scan.id)).status).to.equal('scanning');
      clock.advance(1);
      expect(await v.services.scanLifecycle.lapseExpired()).to.deep.equal({ lapsed: 1, voided: 0 });
      const lapsed = await scanOf(scan.id);
      expect(lapsed).to.include({ status: 'pending', attempts: 1, notBefore: new Date(clock.now().getTime() + MINUTE).toISOString() });
      expect(lapsed.lastError).to.match(/lease lapsed/);

      // The executor heartbeats again: the lease is gone, the run is abandoned and nothing is recorded for it.
      clock.advance(30_000);
      await held.heartbeat();
      expect(held.signal.aborted).to.equal(true);
      expect(await run).to.equal('lost');
      expect(await openIssues(repo)).to.deep.equal([]);
      expect(await scanOf(scan.id)).to.include({ status: 'pending', attempts: 1 });
    });

    it('[S1.3.1-19] [S1.3.1-07] a result arriving after the lease lapsed is refused and ingests nothing', async () => {
      const repo = await repository();
      const scan = await requestScan(repo);
      executor.holds();
      const [run] = await v.services.scanWorker.tick();
      const held = executor.held.at(-1)!;
      clock.advance(20 * MINUTE);
      await v.services.scanLifecycle.lapseExpired();
      held.finish(result({ vulnerabilities: step('grype', [{ ruleId: 'CVE-LATE' }]) }));
      expect(await run).to.equal('refused');
      expect(await openIssues(repo)).to.deep.equal([]);
      expect(await scanOf(scan.id)).to.include({ status: 'pending', attempts: 1 });
      // The retry runs as attempt 2 after its delay.
      clock.advance(MINUTE);
      executor.returns(result({ vulnerabilities: step('grype', [{ ruleId: 'CVE-LATE' }]) }));
      expect(await v.services.scanWorker.runOnce()).to.deep.equal(['completed']);
      expect(await scanOf(scan.id)).to.include({ status: 'completed', attempts: 2 });
    });

    it('[S1.8.3-41] claims at most VIGIL_SCAN_MAX_CONCURRENT scans at once (default 2)', async () => {
      const scans = [];
      for (let i = 0; i < 3; i++) scans.push(await requestScan(await repository()));
      executor.holds().holds().holds();
      const runs = await v.services.scanWorker.tick();
      expect(runs).to.have.length(2);
      expect(await v.services.scanWorker.tick(), 'full: nothing more is claimed').to.have.length(0);
      const held = executor.held.slice(-2);
      held.forEach((h) => h.finish(result({})));
      expect(await Promise.all(runs)).to.deep.equal(['completed', 'completed']);
      const [third] = await v.services.scanWorker.tick();
      executor.held.at(-1)!.finish(result({}));
      expect(await third).to.equal('completed');
      expect(executor.held).to.have.length(3);
    });

    it('[S1.3.1-20] [S1.3.1-05] a scan needing a credential waits, without spending an attempt, for an executor able to hold it', async () => {
      const repo = await repository();
      const [outcome] = await v.services.scans.requestScans({ actor: null, now: clock.now() }, [{ kind: 'repository', id: repo }], 'manual', { requestedBy: null, requiresCredential: true });
      const scanId = (outcome as { scanId: number }).scanId;
      const unable = { worker: 'agent:without-sealing-key', holdsCredentials: false, labels: [] };
      expect(await v.services.scanLifecycle.claim(unable, 5)).to.deep.equal([]);
      expect(await scanOf(scanId)).to.include({ status: 'pending', attempts: 0, requiresCredential: true });
      executor.returns(result({}));
      expect(await v.services.scanWorker.runOnce()).to.deep.equal(['completed']);
      expect(await scanOf(scanId)).to.include({ status: 'completed', attempts: 1 });
    });

    it('[S1.3.1-13] a waiting scan of a target deleted meanwhile fails permanently when claimed', async () => {
      const repo = await repository();
      const scan = await requestScan(repo);
      expect((await v.request('DELETE', `/repositories/${repo}`, { token: admin })).status).to.equal(204);
      expect(await v.services.scanWorker.runOnce()).to.deep.equal([]);
      const row = await v.database.db.knex('scans').where({ id: scan.id }).first();
      expect(row).to.include({ status: 'failed', attempts: 1 });
      expect(row.error).to.match(/no longer exists/);
    });

    it('[S1.3.1-21] a stale lease row whose claim never reached the event log is void: the scan stays claimable without a spent attempt', async () => {
      const repo = await repository();
      const scan = await requestScan(repo);
      await v.database.db.knex('scan_leases').insert({
        scan_id: scan.id, attempt: 1, worker: 'embedded:crashed', claimed_at: clock.now().toISOString(), lease_expires_at: new Date(clock.now().getTime() + 20 * MINUTE).toISOString(), renewed_at: clock.now().toISOString(),
      });
      expect(await v.services.scanWorker.runOnce(), 'attempt 1 is reserved').to.deep.equal([]);
      clock.advance(20 * MINUTE);
      expect(await v.services.scanLifecycle.lapseExpired()).to.deep.equal({ lapsed: 0, voided: 1 });
      expect(await scanOf(scan.id)).to.include({ status: 'pending', attempts: 0 });
      executor.returns(result({}));
      expect(await v.services.scanWorker.runOnce()).to.deep.equal(['completed']);
    });

    it('[S1.3.1-19] a running scan without its lease row (a restored database) lapses 20 minutes after its claim', async () => {
      const repo = await repository();
      const scan = await requestScan(repo);
      executor.holds();
      const [run] = await v.services.scanWorker.tick();
      await v.database.db.knex('scan_leases').where({ scan_id: scan.id }).del();
      clock.advance(20 * MINUTE - 1);
      expect(await v.services.scanLifecycle.lapseExpired()).to.deep.equal({ lapsed: 0, voided: 0 });
      clock.advance(1);
      expect(await v.services.scanLifecycle.lapseExpired()).to.deep.equal({ lapsed: 1, voided: 0 });
      expect(await scanOf(scan.id)).to.include({ status: 'pending', attempts: 1 });
      executor.held.at(-1)!.finish(result({}));
      expect(await run).to.equal('refused');
    });

    it('[S1.8.3-43] [S1.3.1-16] started, the worker claims at once and on its interval; stopped, it aborts running scans as a transient failure', async () => {
      const repo = await repository();
      const scan = await requestScan(repo);
      executor.holds();
      expect(v.services.scanWorker.start()).to.equal(true);
      try {
        for (let i = 0; i < 100 && executor.held.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
        expect(executor.held).to.have.length(1);
        expect((await scanOf(scan.id)).status).to.equal('scanning');
      } finally {
        await v.services.scanWorker.stop();
      }
      expect(executor.held[0].signal.aborted).to.equal(true);
      expect(await scanOf(scan.id)).to.include({ status: 'pending', attempts: 1, lastError: 'Vigil stopped while the scan ran.' });
    });

    it('[S1.3.1-02] while a scan runs a new request is accepted (it waits), and it starts only when the running one ended', async () => {
      const repo = await repository();
      const first = await requestScan(repo);
      executor.holds();
      const [run] = await v.services.scanWorker.tick();
      const second = await requestScan(repo);
      expect((await v.request('POST', `/repositories/${repo}/scan`, { token: admin, body: {} })).status).to.equal(409);
      expect(await v.services.scanWorker.tick(), 'one scan of a target at a time').to.have.length(0);
      executor.held.at(-1)!.finish(result({}));
      expect(await run).to.equal('completed');
      executor.returns(result({}));
      expect(await v.services.scanWorker.runOnce()).to.deep.equal(['completed']);
      expect((await scanOf(first.id)).status).to.equal('completed');
      expect((await scanOf(second.id)).status).to.equal('completed');
    });
  });
});

describe('Scans: the built-in worker without an executor', function () {
  this.timeout(60_000);

  it('[S1.8.3-39] binds the Docker executor and the scanner normaliser by default (infrastructure/scanning)', async () => {
    const v = await startVigil();
    try {
      expect(v.services.scanWorker.unavailableBecause).to.equal(null);
    } finally {
      await v.stop();
    }
  });

  it('[S1.8.3-39] stays off with a reason when no executor is bound, and when VIGIL_EMBEDDED_WORKER is false', async () => {
    const v = await startVigil({ overrides: { scanExecutor: null } });
    const off = await startVigil({ env: { VIGIL_EMBEDDED_WORKER: 'false' }, overrides: { scanExecutor: new FakeExecutor(), normaliser: new FakeNormaliser() } });
    try {
      expect(v.services.scanWorker.unavailableBecause).to.match(/No scan executor is bound/);
      expect(v.services.scanWorker.start()).to.equal(false);
      expect(await v.services.scanWorker.runOnce()).to.deep.equal([]);
      expect(off.services.scanWorker.unavailableBecause).to.match(/VIGIL_EMBEDDED_WORKER is false/);
      expect(off.services.scanWorker.start()).to.equal(false);
    } finally {
      await v.stop();
      await off.stop();
    }
  });
});
