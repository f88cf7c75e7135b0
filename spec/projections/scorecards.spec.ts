import { expect } from 'chai';
import { Knex } from 'knex';
import type { KevCatalogueSynchronised, KevEntriesDelisted, KevEntriesListed } from '../../domain/enrichment/feed-events';
import { ManualClock } from '../../application/ports/clock';
import type { Finding } from '../../domain/backlog/issue';
import { type ScanCompletedData, type ScanFailedData, type ScanRequestedData } from '../../domain/scans/scan';
import { globalScorecard, scoreTarget, type GlobalIssue, type ScoredTarget } from '../../domain/scorecards';
import type { Severity } from '../../domain/gate/severity';
import type { TriageDecided, TriageRequested } from '../../domain/triage/events';
import { ProjectionRunner } from '../../projections/engine/projection-runner';
import { scorecardsProjection } from '../../projections/scorecards/projection';
import { seedFindings } from '../support/backlog';
import { describeEachEngine } from '../support/databases';
import { RunningVigil, startVigil } from '../support/vigil';
import { streams } from '../../domain/shared/streams';

type Seed = Partial<Finding> & { ruleId: string };
const TABLES = ['scorecard_issues', 'scorecard_targets', 'scorecard_open_ages', 'scorecard_trend_points', 'scorecard_badges'];
const DAY = 86_400_000;

async function snapshot(knex: Knex): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of TABLES) {
    const rows: Record<string, unknown>[] = await knex(table).select('*');
    out[table] = rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [k, typeof v === 'boolean' ? Number(v) : typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) && k !== 'issue_key' ? Number(v) : v])))).sort();
  }
  return out;
}

describeEachEngine('Scorecards projection: triage, scans, days, rebuild', ({ engine, get }) => {
  let v: RunningVigil;
  let admin: string;
  let clock: ManualClock;
  const ids: Record<string, number> = {};
  let scanIds = 0;

  const at = async (iso: string) => { clock.set(iso); admin = await v.signIn(); };
  const scan = (name: string, findings: Seed[], kind: 'repository' | 'container' = 'repository') => seedFindings(v, { kind, id: ids[name] }, findings);
  const card = async (name: string, kind = 'repositories') => (await v.request('GET', `/scorecards/${kind}/${ids[name]}`, { token: admin })).body;
  const issueKey = async (name: string, ruleId: string): Promise<string> =>
    (await v.database.db.knex('issues').where({ target_id: ids[name], rule_id: ruleId }).first('issue_key')).issue_key;
  const triage = async (name: string, ruleId: string, event: TriageDecided | TriageRequested) =>
    v.services.commands.appendAll([{ stream: `issue-${await issueKey(name, ruleId)}`, events: [event], expectedRevision: 'any' }], { actor: 1, now: clock.now() });
  const decided = (status: TriageDecided['data']['status'], reviewDate: string | null = null): TriageDecided => ({
    type: 'TriageDecided', data: { status, previousStatus: 'under_review', justification: status === 'not_affected' ? 'code_not_reachable' as never : null, comment: null, reviewDate, actor: '1', at: clock.now().toISOString() },
  });
  const finished = async (kind: 'repository' | 'container', name: string, outcome: 'completed' | 'failed', disallowedLicences: ScanCompletedData['disallowedLicences'] = []) => {
    const id = 800_000 + ++scanIds;
    const when = clock.now().toISOString();
    const of = { id, targetKind: kind, targetId: ids[name] };
    const requested: ScanRequestedData = { ...of, trigger: 'schedule', requiresCredential: false, requestedBy: null, requestedAt: when };
    const completed: ScanCompletedData = { ...of, attempt: 1, worker: 'spec', completedAt: when, duration: null, steps: {}, detectedLanguages: null, createdCount: 0, resolvedCount: 0, reopenedCount: 0, disallowedLicences };
    const failed: ScanFailedData = { ...of, attempt: 3, kind: 'transient', reason: 'network', failedAt: when, lapsed: false };
    await v.services.commands.appendAll([{
      stream: streams.scan(id), expectedRevision: 'no_stream',
      events: [{ type: 'ScanRequested', data: requested }, outcome === 'completed' ? { type: 'ScanCompleted', data: completed } : { type: 'ScanFailed', data: failed }],
    }], { actor: null, now: clock.now() });
  };
  const sev = (n: number, severity: Severity, prefix: string = severity): Seed[] => Array.from({ length: n }, (_, i) => ({ ruleId: `${prefix}-${i}`, severity }));

  before(async () => {
    clock = new ManualClock(new Date('2026-05-01T08:00:00.000Z'));
    v = await startVigil({ engine, database: get(), clock });
    admin = await v.signIn();
    const project = (await v.request('POST', '/projects', { token: admin, body: { name: 'P' } })).body.id;
    for (const name of ['a', 'b', 'doomed']) {
      ids[name] = (await v.request('POST', '/repositories', { token: admin, body: { url: `https://git.example/proj/${name}`, name, projectId: project } })).body.id;
    }
    ids.c = (await v.request('POST', '/containers', { token: admin, body: { image: 'registry.example/proj/c:1', name: 'c', projectId: project } })).body.id;
  });
  after(async () => { await v.stop({ keepDatabase: true }); });

  it('[S1.2.9-01] follows detections, resolutions and reopenings; [S1.2.3-17] imported and plugin issues never count', async () => {
    await scan('a', [...sev(1, 'critical'), ...sev(2, 'high'), ...sev(4, 'medium')]);
    await seedFindings(v, { kind: 'repository', id: ids.a }, sev(5, 'critical', 'SARIF'), { toolKey: 'import:ci/semgrep', type: 'imported' });
    await seedFindings(v, { kind: 'repository', id: ids.a }, sev(5, 'critical', 'PLUGIN'), { toolKey: 'plugin:7', type: 'plugin' });
    await scan('b', sev(1, 'high'));
    await scan('doomed', sev(3, 'critical'));
    expect(await card('a')).to.include({ riskPoints: 20, score: 70, openCriticalCount: 1, openHighCount: 2, openMediumCount: 4 });

    await at('2026-05-02T09:00:00.000Z');
    await scan('a', [...sev(1, 'critical'), ...sev(2, 'high'), ...sev(3, 'medium')]); // medium-3 resolved
    expect(await card('a')).to.include({ riskPoints: 19.5, openMediumCount: 3 });
    await at('2026-05-03T09:00:00.000Z');
    await scan('a', [...sev(1, 'critical'), ...sev(2, 'high'), ...sev(4, 'medium')]); // and reopened
    expect(await card('a')).to.include({ riskPoints: 20, openMediumCount: 4 });
  });

  it('[S1.2.9-01] triage: not_affected and fixed leave the figures, will_not_fix and a pending request stay in them', async () => {
    await at('2026-05-04T09:00:00.000Z');
    await triage('a', 'critical-0', decided('not_affected'));
    expect(await card('a')).to.include({ riskPoints: 10, score: 83, openCriticalCount: 0 });
    await triage('a', 'high-0', decided('fixed'));
    expect(await card('a')).to.include({ riskPoints: 6, openHighCount: 1 });
    await triage('a', 'high-1', decided('will_not_fix', '2026-06-01T09:00:00.000Z'));
    await triage('b', 'high-0', {
      type: 'TriageRequested', data: { requestedStatus: 'fixed', previousStatus: 'under_review', justification: null, comment: null, reviewDate: null, requestedBy: '1', at: clock.now().toISOString() },
    });
    expect(await card('a')).to.include({ riskPoints: 6, openHighCount: 1 });
    expect(await card('b')).to.include({ riskPoints: 4, openHighCount: 1 });
    await triage('a', 'critical-0', decided('affected'));
    expect(await card('a')).to.include({ riskPoints: 16, openCriticalCount: 1 });
  });

  it('counts overdue without will_not_fix, from the first-seen instant', async () => {
    await at('2026-06-01T09:00:00.000Z');
    // a: critical-0 (7 days), high-1 will_not_fix (not counted), mediums first seen 1 May (90 days: not yet); b: high-0 pending (30 days: overdue)
    expect(await card('a')).to.include({ overdueCount: 1 });
    expect(await card('b')).to.include({ overdueCount: 1 });
  });

  it('[S1.2.9-09] reads scans: licences of the newest completed scan, the last scan failing, a clean scan of an image', async () => {
    await at('2026-06-02T09:00:00.000Z');
    await finished('container', 'c', 'completed', [{ component: 'pkg:npm/x@1', licence: 'AGPL-3.0-only' }]);
    expect(await card('c', 'containers')).to.include({ scanned: true, riskPoints: 4, score: 93, licenseViolationCount: 1, lastScanFailed: false });
    await finished('repository', 'b', 'failed');
    expect(await card('b')).to.include({ scanned: true, lastScanFailed: true, riskPoints: 4 });
  });

  it('forgets a deleted target, keeps badges of the others, revokes what is revoked', async () => {
    await at('2026-06-03T09:00:00.000Z');
    const kept = await v.request('POST', '/scorecards/badges', { token: admin, body: { repositoryId: ids.a } });
    const revoked = await v.request('POST', '/scorecards/badges', { token: admin, body: { repositoryId: ids.b } });
    const orphan = await v.request('POST', '/scorecards/badges', { token: admin, body: { repositoryId: ids.doomed } });
    await v.request('DELETE', `/scorecards/badges/${revoked.body.id}`, { token: admin });
    expect((await v.request('DELETE', `/repositories/${ids.doomed}`, { token: admin })).status).to.equal(204);
    const knex = v.database.db.knex;
    for (const table of TABLES) expect(await knex(table).where({ target_kind: 'repository', target_id: ids.doomed }), table).to.deep.equal([]);
    expect((await v.request('GET', `/scorecards/badges/${orphan.body.token}.svg`)).status).to.equal(404);
    expect((await v.request('GET', `/scorecards/badges/${revoked.body.token}.svg`)).status).to.equal(404);
    expect((await v.request('GET', `/scorecards/badges/${kept.body.token}.svg`)).status).to.equal(200);
    expect(JSON.stringify(await knex('scorecard_badges').select('*'))).not.to.contain(kept.body.token);
  });

  it('records the figures each day ended with: a trend point per earlier day, the current row for the last', async () => {
    const knex = v.database.db.knex;
    const points: Array<Record<string, any>> = await knex('scorecard_trend_points').where({ target_kind: 'repository', target_id: ids.a }).orderBy('day');
    expect(points.map((p) => [p.day, Number(p.risk_points)])).to.deep.equal([['2026-05-01', 20], ['2026-05-02', 19.5], ['2026-05-03', 20]]);
    const current = await knex('scorecard_targets').where({ target_kind: 'repository', target_id: ids.a }).first();
    expect([current.updated_at.slice(0, 10), Number(current.risk_points)]).to.deep.equal(['2026-05-04', 16]);
    const trends = await v.request('GET', '/dashboard/trends?days=5', { token: admin });
    expect(trends.body.points.map((p: { date: string }) => p.date)).to.deep.equal(['2026-05-30', '2026-05-31', '2026-06-01', '2026-06-02', '2026-06-03']);
    // a 16 + b 4 before 2 June; the image's licence from 2 June on; the deleted target is gone
    expect(trends.body.points.map((p: { riskPoints: number }) => p.riskPoints)).to.deep.equal([20, 20, 20, 24, 24]);
  });

  it('[S1.2.9-04] [S1.2.9-10] follows the KEV feed: listed CVEs count once the catalogue is synchronised, delisted ones no more', async () => {
    const feed = (events: Array<KevEntriesListed | KevEntriesDelisted | KevCatalogueSynchronised>) =>
      v.services.commands.appendAll([{ stream: 'feed-kev', events, expectedRevision: 'any' }], { actor: null, now: clock.now() });
    const entry = (cve: string) => ({ cve, dateAdded: '2026-06-01', vendorProject: 'v', product: 'p', name: cve, dueDate: '2026-07-01', ransomware: null });
    const synchronised = (version: string): KevCatalogueSynchronised => ({
      type: 'KevCatalogueSynchronised', data: { version, dateReleased: clock.now().toISOString(), count: 2, digest: 'd', sha256: 's', listed: 2, changed: 0, delisted: 0, parts: 1, at: clock.now().toISOString() },
    });
    await at('2026-06-04T09:00:00.000Z');
    await feed([{ type: 'KevEntriesListed', data: { version: '2026.06.04', part: 1, entries: [entry('critical-0'), entry('medium-0')] } }]);
    expect(await card('a'), 'a catalogue never synchronised marks nothing').to.include({ riskPoints: 16, openKevCount: 0 });
    await feed([synchronised('2026.06.04')]);
    expect(await card('a')).to.include({ riskPoints: 55.5, score: 36, openKevCount: 2, openCriticalCount: 1, openMediumCount: 4 });
    await at('2026-06-05T09:00:00.000Z');
    await scan('b', [...sev(1, 'high'), { ruleId: 'GHSA-1', identifier: 'critical-0', severity: 'low' }]);
    expect(await card('b')).to.include({ riskPoints: 29, score: 54, openKevCount: 1 });
    await feed([{ type: 'KevEntriesDelisted', data: { version: '2026.06.05', part: 1, cves: ['medium-0'] } }, synchronised('2026.06.05')]);
    expect(await card('a')).to.include({ riskPoints: 31, score: 54, openKevCount: 1 });
  });

  it('[S1.2.9-19] the global figures equal the domain\'s globalScorecard over the backlog and the scans', async () => {
    const knex = v.database.db.knex;
    const rows: Array<Record<string, any>> = await knex('issues').where('status', 'open');
    const issues: GlobalIssue[] = [];
    const targets: ScoredTarget[] = [];
    const licences: Array<{ id: string }> = [];
    for (const [kind, table] of [['repository', 'repositories'], ['container', 'containers']] as const) {
      for (const t of await knex(table).select('id', 'name')) {
        const c = (await v.request('GET', `/scorecards/${table}/${t.id}`, { token: admin })).body;
        for (let i = 0; i < c.licenseViolationCount; i++) licences.push({ id: `${kind}:${t.id}:${i}` });
        const own: GlobalIssue[] = rows.filter((r) => r.target_kind === kind && Number(r.target_id) === Number(t.id))
          .map((r) => ({ id: r.id, severity: r.severity, kev: Boolean(r.kev), type: r.type, triageStatus: r.triage_status, firstSeenAt: r.first_seen_at }));
        issues.push(...own);
        targets.push({ kind, id: Number(t.id), name: t.name, ...scoreTarget({ openIssues: own, disallowedLicences: c.licenseViolationCount, scanned: c.scanned }) });
      }
    }
    expect(issues.length).to.be.greaterThan(10);
    const expected = globalScorecard({ targets, issues, licenceViolations: licences, now: clock.now() });
    const answered = (await v.request('GET', '/scorecards/global', { token: admin })).body;
    expect(answered).to.deep.equal(JSON.parse(JSON.stringify(expected)));
  });

  it('rebuilds identical scorecard rows: all projections, and this one alone in batches of three events (trap 2)', async () => {
    const knex = v.database.db.knex;
    const live = await snapshot(knex);
    expect(live.scorecard_targets.length).to.be.greaterThan(2);
    await v.services.projections.stop();
    await v.services.projections.rebuild();
    expect(await snapshot(knex)).to.deep.equal(live);
    const small = new ProjectionRunner(v.database.db, v.services.store as never, [scorecardsProjection], { batchSize: 3 });
    await small.rebuild([scorecardsProjection]);
    expect(await snapshot(knex)).to.deep.equal(live);
  });
});

describe('Scorecards projection: a day later, the clock does not move the figures', () => {
  it('keeps a target\'s score while only time passes; overdue moves at query time', async () => {
    const clock = new ManualClock(new Date('2026-01-01T00:00:00.000Z'));
    const v = await startVigil({ clock });
    try {
      let admin = await v.signIn();
      const id = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/time/one' } })).body.id;
      await seedFindings(v, { kind: 'repository', id }, [{ ruleId: 'C', severity: 'critical' }]);
      const before = (await v.request('GET', `/scorecards/repositories/${id}`, { token: admin })).body;
      clock.advance(8 * DAY);
      admin = await v.signIn();
      const after = (await v.request('GET', `/scorecards/repositories/${id}`, { token: admin })).body;
      expect(after).to.deep.equal({ ...before, overdueCount: 1 });
    } finally {
      await v.stop();
    }
  });
});
