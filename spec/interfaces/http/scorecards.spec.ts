import { expect } from 'chai';
import type { KevCatalogueSynchronised, KevEntriesDelisted, KevEntriesListed } from '../../../domain/enrichment/feed-events';
import { ManualClock } from '../../../application/ports/clock';
import type { Finding } from '../../../domain/backlog/issue';
import { type ScanCompletedData, type ScanFailedData, type ScanRequestedData } from '../../../domain/scans/scan';
import { ALL_GRADES } from '../../../domain/scorecards';
import { seedFindings } from '../../support/backlog';
import { RunningVigil, startVigil } from '../../support/vigil';
import { streams } from '../../../domain/shared/streams';

type Kind = 'repository' | 'container';
type Seed = Partial<Finding> & { ruleId: string };

const DAY = 86_400_000;
const many = (n: number, severity: Finding['severity'], prefix: string = severity): Seed[] => Array.from({ length: n }, (_, i) => ({ ruleId: `${prefix}-${i}`, severity }));
/** One high, three mediums, two lows: 5.75 riskPoints, score 90 (grade A). */
const NINETY: Seed[] = [...many(1, 'high'), ...many(3, 'medium'), ...many(2, 'low')];

const GLOBAL_FIELDS = ['grades', 'weakestTarget', 'riskPoints', 'totalTargets', 'observedTargets', 'openCriticalCount', 'openHighCount', 'openKevCount', 'overdueCount', 'licenseViolationCount'];

describe('Scorecards and dashboards over HTTP (spec 1 §2.9, §4.6)', function () {
  let v: RunningVigil;
  let admin: string;
  let clock: ManualClock;
  let n = 0;

  const register = async (options: { projectId?: number; kind?: Kind } = {}): Promise<number> => {
    const kind = options.kind ?? 'repository';
    const body = kind === 'repository'
      ? { url: `https://git.example/scorecards/r${++n}`, name: `r${n}`, projectId: options.projectId }
      : { image: `registry.example/scorecards/c${++n}:1`, name: `c${n}`, projectId: options.projectId };
    const r = await v.request('POST', kind === 'repository' ? '/repositories' : '/containers', { token: admin, body });
    expect(r.status, r.text).to.equal(201);
    return r.body.id;
  };
  /** A complete scanner report for the target: what it lacks is resolved. */
  const scan = (id: number, findings: Seed[], kind: Kind = 'repository') => seedFindings(v, { kind, id }, findings);
  const card = async (id: number, token = admin, kind: Kind = 'repository') =>
    v.request('GET', `/scorecards/${kind === 'repository' ? 'repositories' : 'containers'}/${id}`, { token });
  const project = async (name: string, solutionId?: number): Promise<number> =>
    (await v.request('POST', '/projects', { token: admin, body: { name, solutionId } })).body.id;
  let scanIds = 900_000;
  /** A finished scan of the target, as the scans context records it (request, then completion or final failure). */
  const finished = async (kind: Kind, id: number, outcome: 'completed' | 'failed', disallowedLicences: ScanCompletedData['disallowedLicences'] = []) => {
    const scanId = ++scanIds;
    const at = clock.now().toISOString();
    const of = { id: scanId, targetKind: kind, targetId: id };
    const requested: ScanRequestedData = { ...of, trigger: 'manual', requiresCredential: false, requestedBy: null, requestedAt: at };
    const completed: ScanCompletedData = {
      ...of, attempt: 1, worker: 'spec', completedAt: at, duration: 'PT1S', steps: {}, detectedLanguages: null, createdCount: 0, resolvedCount: 0, reopenedCount: 0, disallowedLicences,
    };
    const failed: ScanFailedData = { ...of, attempt: 1, kind: 'permanent', reason: 'authentication refused', failedAt: at, lapsed: false };
    await v.services.commands.appendAll([{
      stream: streams.scan(scanId), expectedRevision: 'no_stream',
      events: [{ type: 'ScanRequested', data: requested }, outcome === 'completed' ? { type: 'ScanCompleted', data: completed } : { type: 'ScanFailed', data: failed }],
    }], { actor: null, now: clock.now() });
  };
  /** The KEV feed as its synchronisation records it (ADR 0007): listed entries, delisted CVEs, the catalogue in use. */
  let kevVersion = 0;
  const kev = async (listed: string[], delisted: string[] = []) => {
    const version = `2099.01.${String(++kevVersion).padStart(2, '0')}`;
    const at = clock.now().toISOString();
    const entries = listed.map((cve) => ({ cve, dateAdded: '2099-01-01', vendorProject: 'v', product: 'p', name: cve, dueDate: '2099-02-01', ransomware: null }));
    const events: Array<KevEntriesListed | KevEntriesDelisted | KevCatalogueSynchronised> = [
      ...(entries.length ? [{ type: 'KevEntriesListed' as const, data: { version, part: 1, entries } }] : []),
      ...(delisted.length ? [{ type: 'KevEntriesDelisted' as const, data: { version, part: 1, cves: delisted } }] : []),
      { type: 'KevCatalogueSynchronised', data: { version, dateReleased: at, count: listed.length, digest: 'd', sha256: 's', listed: listed.length, changed: 0, delisted: delisted.length, parts: 1, at } },
    ];
    await v.services.commands.appendAll([{ stream: 'feed-kev', events, expectedRevision: 'any' }], { actor: null, now: clock.now() });
  };
  /** An account that sees exactly the given targets (and projects). */
  const viewer = async (grants: Array<{ kind: 'project' | Kind; id: number }>) => {
    const account = await v.account(['reader']);
    const team = await v.request('POST', '/teams', { token: admin, body: { name: `team-${++n}` } });
    await v.request('POST', `/teams/${team.body.id}/members`, { token: admin, body: { accountId: account.id } });
    for (const g of grants) {
      const r = await v.request('POST', `/teams/${team.body.id}/grants`, { token: admin, body: g });
      expect(r.status, r.text).to.be.oneOf([200, 201, 204]);
    }
    return account.token;
  };

  before(async () => {
    clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
    v = await startVigil({ clock });
    admin = await v.signIn();
  });
  after(async () => { await v.stop(); });

  describe('a target\'s scorecard', () => {
    it('[S1.2.9-01] [S1.2.9-05] [S1.4.6-01] a single open critical scores 83 (10 riskPoints), grade B', async () => {
      const id = await register();
      await scan(id, many(1, 'critical'));
      const r = await card(id);
      expect(r.status).to.equal(200);
      expect(r.body).to.include({ kind: 'repository', id, score: 83, grade: 'B', riskPoints: 10, openCriticalCount: 1, openHighCount: 0, scanned: true });
    });

    it('[S1.2.9-06] a single open high scores 93, grade A', async () => {
      const id = await register({ kind: 'container' });
      await scan(id, many(1, 'high'), 'container');
      expect((await card(id, admin, 'container')).body).to.include({ kind: 'container', score: 93, grade: 'A', riskPoints: 4, openHighCount: 1 });
    });

    it('[S1.2.9-07] [S1.2.9-08] [S1.2.9-11] mediums add 0.5 and lows 0.125, and a completed scan adds no bonus', async () => {
      const id = await register();
      await scan(id, [...many(1, 'critical'), ...many(2, 'high'), ...many(4, 'medium'), ...many(8, 'low')]);
      // 10 + 8 + 2 + 1 = 21 riskPoints: round(100 x e^(-21/55)) = 68
      expect((await card(id)).body).to.include({ score: 68, grade: 'C', riskPoints: 21, openCriticalCount: 1, openHighCount: 2, openMediumCount: 4, openLowCount: 8 });
    });

    it('[S1.2.9-02] never below 1: 31 criticals (310 riskPoints) score 1', async () => {
      const id = await register();
      await scan(id, many(31, 'critical'));
      expect((await card(id)).body).to.include({ score: 1, grade: 'F', riskPoints: 310 });
    });

    it('[S1.2.9-03] a scanned target with nothing open scores 100, and a later scan that no longer reports an issue raises the score', async () => {
      const id = await register();
      await scan(id, many(2, 'critical'));
      expect((await card(id)).body).to.include({ score: 70, riskPoints: 20 });
      await scan(id, []);
      expect((await card(id)).body).to.include({ score: 100, grade: 'A', riskPoints: 0, openCriticalCount: 0 });
    });

    it('[S1.2.9-09] [S1.2.9-03] each disallowed licence of the newest completed scan adds 4 riskPoints; a clean scan scores 100', async () => {
      const id = await register();
      await finished('repository', id, 'completed', [{ component: 'a', licence: 'GPL-3.0-only' }, { component: 'b', licence: 'AGPL-3.0-only' }, { component: 'a', licence: 'GPL-3.0-only' }]);
      expect((await card(id)).body).to.include({ scanned: true, riskPoints: 8, score: 86, licenseViolationCount: 2 });
      await finished('repository', id, 'completed');
      expect((await card(id)).body).to.include({ riskPoints: 0, score: 100, grade: 'A', licenseViolationCount: 0 });
    });

    it('[S1.2.9-04] [S1.2.9-10] a KEV-listed critical adds 25 riskPoints, not 35, and caps the score at 54; delisting lifts both', async () => {
      const id = await register();
      await scan(id, [{ ruleId: 'CVE-2099-0001', severity: 'critical' }, ...many(1, 'low')]);
      expect((await card(id)).body).to.include({ riskPoints: 10.125, score: 83, openKevCount: 0 });
      await kev(['CVE-2099-0001']);
      // 25.125 riskPoints alone would score 63: the exploited cap holds it at 54 (grade D)
      expect((await card(id)).body).to.include({ riskPoints: 25.125, score: 54, grade: 'D', openKevCount: 1, openCriticalCount: 1 });
      const issue = (await v.request('GET', `/issues?repository_id=${id}&severity=critical`, { token: admin })).body[0];
      expect(issue.kev, 'the backlog reads the same feed').to.equal(true);
      await scan(id, [{ ruleId: 'CVE-2099-0001', severity: 'critical' }, { ruleId: 'CVE-2099-0001-B', identifier: 'CVE-2099-0001', severity: 'low' }]);
      expect((await card(id)).body, 'a new issue of a listed CVE is exploited at once').to.include({ riskPoints: 50, score: 40, openKevCount: 2 });
      await kev([], ['CVE-2099-0001']);
      expect((await card(id)).body).to.include({ riskPoints: 10.125, score: 83, openKevCount: 0 });
    });

    it('[S1.2.9-12] a never-scanned target reads NO_DATA with score and riskPoints null', async () => {
      const id = await register();
      const r = await card(id);
      expect(r.status).to.equal(200);
      expect(r.body).to.include({ score: null, grade: 'NO_DATA', riskPoints: null, scanned: false, openCriticalCount: 0 });
    });

    it('[S1.2.3-17] imported and plugin issues never count, and do not make a target scanned', async () => {
      const id = await register();
      await seedFindings(v, { kind: 'repository', id }, many(3, 'critical', 'SARIF'), { toolKey: 'import:ci/semgrep', type: 'imported' });
      expect((await card(id)).body).to.include({ score: null, grade: 'NO_DATA', riskPoints: null, openCriticalCount: 0 });
      await scan(id, many(1, 'high'));
      await seedFindings(v, { kind: 'repository', id }, many(2, 'critical', 'PLUGIN'), { toolKey: 'plugin:licence-check', type: 'plugin' });
      expect((await card(id)).body).to.include({ score: 93, riskPoints: 4, openCriticalCount: 0, openHighCount: 1 });
    });

    it('counts overdue issues against the remediation windows of the settings, at the clock\'s now', async () => {
      const id = await register();
      await scan(id, [...many(1, 'critical'), ...many(1, 'high')]);
      expect((await card(id)).body.overdueCount).to.equal(0);
      const overdueAt = async (at: string) => {
        clock.set(at);
        admin = await v.signIn(); // sessions lapse while the clock moves
        return (await card(id)).body.overdueCount;
      };
      expect(await overdueAt('2026-03-08T10:00:00.000Z'), 'the deadline instant itself is on time').to.equal(0);
      expect(await overdueAt('2026-03-08T10:00:00.001Z')).to.equal(1);
      const patched = await v.request('PATCH', '/settings', { token: admin, body: { remediation_days_critical: 10 } });
      expect(patched.status, patched.text).to.equal(200);
      expect((await card(id)).body.overdueCount).to.equal(0);
      expect(await overdueAt('2026-03-31T10:00:00.001Z'), 'the high is past its 30 days too').to.equal(2);
      await v.request('PATCH', '/settings', { token: admin, body: { remediation_days_critical: 7 } });
      expect(await overdueAt('2026-03-01T10:00:00.000Z')).to.equal(0);
    });

    it('answers 404 alike for an unknown target and one the caller does not see', async () => {
      const id = await register();
      await scan(id, many(1, 'high'));
      const stranger = await viewer([]);
      expect((await card(id, stranger)).status).to.equal(404);
      expect((await card(99_999_999, stranger)).status).to.equal(404);
      expect((await card(99_999_999)).status).to.equal(404);
      expect((await card(id, stranger, 'container')).status).to.equal(404);
    });
  });

  describe('projects and solutions', () => {
    it('[S1.2.9-13] [S1.2.9-14] [S1.4.6-03] a project with 3 of 4 targets scanned, lowest 90, is held at the scanned share: 75', async () => {
      const p = await project('held');
      const [a, b, c] = [await register({ projectId: p }), await register({ projectId: p }), await register({ projectId: p, kind: 'container' })];
      await register({ projectId: p });
      await scan(a, NINETY);
      await finished('repository', b, 'completed');
      await finished('container', c, 'completed');
      expect((await card(a)).body).to.include({ score: 90, riskPoints: 5.75 });
      const r = await v.request('GET', `/projects/${p}/compliance`, { token: admin });
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.include({ kind: 'project', id: p, name: 'held', score: 75, grade: 'B', riskPoints: 5.75, totalTargets: 4, observedTargets: 3, scannedShare: 75 });
      expect(r.body.weakestTarget).to.deep.equal({ kind: 'repository', id: a, name: (await v.request('GET', `/repositories/${a}`, { token: admin })).body.name, score: 90, grade: 'A', riskPoints: 5.75 });
      expect(r.body.targets.map((t: { id: number }) => t.id)).to.have.length(4);
      expect(r.body.grades.find((g: { grade: string }) => g.grade === 'NO_DATA').count).to.equal(1);
    });

    it('[S1.2.9-15] a scope\'s riskPoints are its whole open backlog, each issue once; [S1.2.9-12] with nothing scanned, null', async () => {
      const p = await project('sum');
      const [a, b] = [await register({ projectId: p }), await register({ projectId: p })];
      const before = await v.request('GET', `/projects/${p}/compliance`, { token: admin });
      expect(before.body).to.include({ score: null, grade: 'NO_DATA', riskPoints: null, weakestTarget: null, totalTargets: 2, observedTargets: 0 });
      await scan(a, many(1, 'critical'));
      await scan(b, [...many(2, 'high'), ...many(1, 'low')]);
      const r = await v.request('GET', `/projects/${p}/compliance`, { token: admin });
      expect(r.body).to.include({ riskPoints: 18.125, score: 83, openCriticalCount: 1, openHighCount: 2 });
      expect(r.body.weakestTarget).to.include({ id: a, score: 83 });
    });

    it('[S1.4.6-03] a solution\'s scorecard covers the targets of all its projects, with each project\'s figures', async () => {
      const solution = (await v.request('POST', '/solutions', { token: admin, body: { name: 'suite' } })).body.id;
      const [p1, p2] = [await project('s-one', solution), await project('s-two', solution)];
      const [a, b] = [await register({ projectId: p1 }), await register({ projectId: p2 })];
      await scan(a, NINETY);
      await scan(b, many(1, 'critical'));
      const r = await v.request('GET', `/solutions/${solution}/compliance`, { token: admin });
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.include({ kind: 'solution', id: solution, score: 83, riskPoints: 15.75, totalTargets: 2, observedTargets: 2 });
      expect(r.body.weakestTarget).to.include({ id: b, score: 83, grade: 'B' });
      expect(r.body.projects.map((x: { id: number; score: number }) => [x.id, x.score])).to.deep.equal([[p1, 90], [p2, 83]]);
      expect((await v.request('GET', '/solutions/99999999/compliance', { token: admin })).status).to.equal(404);
    });

    it('[S1.2.9-14] counts only the targets the caller sees; a project seen through none answers 404', async () => {
      const p = await project('partial');
      const [a, b] = [await register({ projectId: p }), await register({ projectId: p })];
      await scan(a, many(1, 'high'));
      await scan(b, many(3, 'critical'));
      const sees = await viewer([{ kind: 'repository', id: a }]);
      const r = await v.request('GET', `/projects/${p}/compliance`, { token: sees });
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.include({ score: 93, riskPoints: 4, totalTargets: 1, observedTargets: 1 });
      const stranger = await viewer([]);
      expect((await v.request('GET', `/projects/${p}/compliance`, { token: stranger })).status).to.equal(404);
      expect((await v.request('GET', '/projects/99999999/compliance', { token: admin })).status).to.equal(404);
      const granted = await viewer([{ kind: 'project', id: p }]);
      expect((await v.request('GET', `/projects/${p}/compliance`, { token: granted })).body).to.include({ totalTargets: 2, score: 58 });
    });
  });

  describe('every visible target', () => {
    it('[S1.2.9-17] [S1.2.9-19] [S1.2.9-20] the global scorecard has exactly the fields of §2.9, every grade with its count, and no single score', async () => {
      const r = await v.request('GET', '/scorecards/global', { token: admin });
      expect(r.status).to.equal(200);
      expect(Object.keys(r.body).sort()).to.deep.equal([...GLOBAL_FIELDS].sort());
      expect(r.body.grades.map((g: { grade: string }) => g.grade)).to.deep.equal([...ALL_GRADES]);
      const total = r.body.grades.reduce((sum: number, g: { count: number }) => sum + g.count, 0);
      expect(total).to.equal(r.body.totalTargets);
      expect(r.body.totalTargets - r.body.observedTargets).to.equal(r.body.grades.find((g: { grade: string }) => g.grade === 'NO_DATA').count);
      expect(r.body.weakestTarget).to.include({ score: 1, grade: 'F' });
      expect(r.body).to.include({ openKevCount: 0, licenseViolationCount: 0 });
      expect(r.body).not.to.have.any.keys('score', 'grade');
    });

    it('[S1.2.9-17] [S1.2.9-18] counts only the targets the caller sees; weakestTarget is null when none of them is scanned', async () => {
      const [a, b, c] = [await register(), await register(), await register({ kind: 'container' })];
      await scan(a, many(1, 'critical'));
      await scan(b, many(2, 'high'));
      const onlyUnscanned = await viewer([{ kind: 'container', id: c }]);
      const none = await v.request('GET', '/scorecards/global', { token: onlyUnscanned });
      expect(none.body).to.deep.equal({
        grades: ALL_GRADES.map((grade) => ({ grade, count: grade === 'NO_DATA' ? 1 : 0 })), weakestTarget: null, riskPoints: 0, totalTargets: 1,
        observedTargets: 0, openCriticalCount: 0, openHighCount: 0, openKevCount: 0, overdueCount: 0, licenseViolationCount: 0,
      });
      const two = await viewer([{ kind: 'repository', id: a }, { kind: 'repository', id: b }, { kind: 'container', id: c }]);
      const r = await v.request('GET', '/scorecards/global', { token: two });
      expect(r.body).to.include({ totalTargets: 3, observedTargets: 2, riskPoints: 18, openCriticalCount: 1, openHighCount: 2 });
      expect(r.body.grades.filter((g: { count: number }) => g.count > 0)).to.deep.equal([{ grade: 'B', count: 2 }, { grade: 'NO_DATA', count: 1 }]);
      expect(r.body.weakestTarget).to.deep.include({ kind: 'repository', id: a, score: 83, riskPoints: 10 });
    });

    it('[S1.2.9-21] [S1.4.6-04] posture analytics ranks every visible target with its riskPoints; equal scores rank fewer riskPoints first', async () => {
      const [more, fewer, unscanned] = [await register(), await register(), await register()];
      await scan(more, many(40, 'critical'));
      await scan(fewer, many(31, 'critical'));
      const token = await viewer([{ kind: 'repository', id: more }, { kind: 'repository', id: fewer }, { kind: 'repository', id: unscanned }]);
      const r = await v.request('GET', '/dashboard/posture-analytics', { token });
      expect(r.status).to.equal(200);
      expect(r.body.targetScoreboard.map((t: Record<string, unknown>) => [t.rank, t.id, t.score, t.riskPoints])).to.deep.equal([
        [1, fewer, 1, 310], [2, more, 1, 400], [3, unscanned, null, null],
      ]);
      const all = await v.request('GET', '/dashboard/posture-analytics', { token: admin });
      const ids = all.body.targetScoreboard.map((t: { id: number }) => t.id);
      expect(ids.indexOf(fewer)).to.be.lessThan(ids.indexOf(more));
    });

    it('[S1.4.6-05] [S1.4.6-06] the security overview\'s failingCount counts never-scanned targets and those whose last scan failed', async () => {
      const [clean, never, failed, failedOnly] = [await register(), await register(), await register(), await register({ kind: 'container' })];
      await scan(clean, many(1, 'high'));
      await finished('repository', failed, 'completed');
      await finished('repository', failed, 'failed');
      await finished('container', failedOnly, 'failed');
      const token = await viewer([{ kind: 'repository', id: clean }, { kind: 'repository', id: never }, { kind: 'repository', id: failed }, { kind: 'container', id: failedOnly }]);
      const r = await v.request('GET', '/security/overview', { token });
      expect(r.status).to.equal(200);
      expect(r.body).to.include({ totalTargets: 4, observedTargets: 2, neverScannedCount: 2, lastScanFailedCount: 2, failingCount: 3, openHighCount: 1 });
      expect((await card(failed)).body).to.include({ lastScanFailed: true, scanned: true, score: 100 });
      await finished('repository', failed, 'completed');
      expect((await v.request('GET', '/security/overview', { token })).body).to.include({ failingCount: 2, lastScanFailedCount: 1 });
    });

    it('[S1.2.9-22] trends carry score_formula_changed_on null (the formula never changed here) and one point per day', async () => {
      const r = await v.request('GET', '/dashboard/trends?days=7', { token: admin });
      expect(r.status).to.equal(200);
      expect(r.body.score_formula_changed_on).to.equal(null);
      expect(r.body.points).to.have.length(7);
      expect(r.body.points[6].date).to.equal('2026-03-01');
      const global = await v.request('GET', '/scorecards/global', { token: admin });
      expect(r.body.points[6]).to.include({ riskPoints: global.body.riskPoints, openCriticalCount: global.body.openCriticalCount });
      expect(r.body.points[0]).to.include({ riskPoints: 0, observedTargets: 0 });
      const stranger = await viewer([]);
      expect((await v.request('GET', '/dashboard/trends', { token: stranger })).body.points.every((p: { riskPoints: number }) => p.riskPoints === 0)).to.equal(true);
    });

    it('every reading route needs scope read from a key', async () => {
      const key = await v.key(admin, { name: 'no-read', scopes: ['scan'] });
      for (const path of ['/scorecards/global', '/dashboard/posture-analytics', '/dashboard/trends', '/security/overview']) {
        expect((await v.request('GET', path, { apiKey: key.key })).status, path).to.equal(403);
        expect((await v.request('GET', path)).status, path).to.equal(401);
      }
      const reader = await v.key(admin, { name: 'read', scopes: ['read'] });
      expect((await v.request('GET', '/scorecards/global', { apiKey: reader.key })).status).to.equal(200);
    });
  });

  describe('public badges', () => {
    it('[S1.2.9-16] [S1.4.6-02] an administrator issues a token; the badge answers without a credential, an SVG with the letter only', async () => {
      const id = await register();
      await scan(id, many(1, 'critical'));
      const issued = await v.request('POST', '/scorecards/badges', { token: admin, body: { repositoryId: id } });
      expect(issued.status, issued.text).to.equal(201);
      expect(issued.body).to.include({ targetKind: 'repository', targetId: id });
      expect(issued.body.token).to.match(/^vgl_b_[A-Za-z0-9_-]{43}$/);
      const badge = await v.request('GET', `/scorecards/badges/${issued.body.token}.svg`);
      expect(badge.status).to.equal(200);
      expect(badge.headers.get('content-type')).to.match(/^image\/svg\+xml/);
      expect(badge.text).to.match(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      const words = badge.text.replace(/<[^>]*>/g, ' ') + ' ' + [...badge.text.matchAll(/aria-label="([^"]*)"/g)].map((m) => m[1]).join(' ');
      expect(words).to.contain('B');
      expect(words, 'no number in what the badge says').not.to.match(/\d/);
      expect(badge.text).not.to.contain('83');
      const listed = await v.request('GET', '/scorecards/badges', { token: admin });
      expect(JSON.stringify(listed.body)).not.to.contain(issued.body.token);
      expect(listed.body.find((b: { id: number }) => b.id === issued.body.id)).to.include({ targetKind: 'repository', targetId: id, revokedAt: null });
    });

    it('[S1.2.9-16] an unscanned target\'s badge reads NO_DATA as "?"; a revoked or unknown token answers 404', async () => {
      const id = await register({ kind: 'container' });
      const issued = await v.request('POST', '/scorecards/badges', { token: admin, body: { containerId: id } });
      const badge = await v.request('GET', `/scorecards/badges/${issued.body.token}.svg`);
      expect(badge.text).to.contain('>?</text>');
      expect((await v.request('DELETE', `/scorecards/badges/${issued.body.id}`, { token: admin })).status).to.equal(204);
      expect((await v.request('DELETE', `/scorecards/badges/${issued.body.id}`, { token: admin })).status, 'revoking twice').to.equal(204);
      expect((await v.request('GET', `/scorecards/badges/${issued.body.token}.svg`)).status).to.equal(404);
      expect((await v.request('GET', `/scorecards/badges/vgl_b_${'A'.repeat(43)}.svg`)).status).to.equal(404);
      expect((await v.request('GET', '/scorecards/badges/nonsense.svg')).status).to.equal(404);
      expect((await v.request('DELETE', '/scorecards/badges/99999999', { token: admin })).status).to.equal(404);
    });

    it('only an administrator\'s session issues badges, for exactly one existing target', async () => {
      const id = await register();
      const writer = await v.account(['writer']);
      expect((await v.request('POST', '/scorecards/badges', { token: writer.token, body: { repositoryId: id } })).status).to.equal(403);
      const key = await v.key(admin, { name: 'badge-key', scopes: ['read'] });
      expect((await v.request('POST', '/scorecards/badges', { apiKey: key.key, body: { repositoryId: id } })).status).to.equal(403);
      expect((await v.request('POST', '/scorecards/badges', { token: admin, body: { repositoryId: id, containerId: id } })).status).to.equal(400);
      expect((await v.request('POST', '/scorecards/badges', { token: admin, body: {} })).status).to.equal(400);
      expect((await v.request('POST', '/scorecards/badges', { token: admin, body: { repositoryId: 99_999_999 } })).status).to.equal(404);
      expect((await v.request('GET', '/scorecards/badges', { token: writer.token })).status).to.equal(403);
    });
  });
});
