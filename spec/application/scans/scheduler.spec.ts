import { expect } from 'chai';
import { ManualClock } from '../../../application/ports/clock';
import { nextDueAt } from '../../../domain/targets/schedule';
import { RunningVigil, startVigil } from '../../support/vigil';
import { FakeExecutor, FakeNormaliser } from './fakes';

const MINUTE = 60_000;
const T0 = new Date('2026-01-05T09:00:00.000Z'); // a Monday

/** The scheduler's rounds (spec 1 §2.1), driven by the spec with a ManualClock (runOnce per round). */
describe('Scan scheduler (spec 1 §2.1 schedules, §3.1 "schedule")', function () {
  this.timeout(120_000);
  let v: RunningVigil;
  let clock: ManualClock;
  let executor: FakeExecutor;
  const ids: Record<string, number> = {};

  const token = () => v.signIn(); // fresh: the clock moves past session idle times
  const at = (minutes: number) => { clock.set(new Date(T0.getTime() + minutes * MINUTE)); };
  const scansOf = async (kind: 'repository' | 'container', id: number) =>
    v.database.db.knex('scans').where({ target_kind: kind, target_id: id }).orderBy('id');
  /** Runs every scan waiting now to the end (successfully), so that the next step starts from no busy target. */
  const drain = async () => {
    executor.reset();
    while ((await v.services.scanWorker.runOnce()).length > 0) { /* until nothing is claimable */ }
  };
  const lastScheduled = async (kind: 'repository' | 'container', id: number) =>
    (await v.database.db.knex(kind === 'repository' ? 'repositories' : 'containers').where({ id }).first()).last_scheduled_scan_at;

  before(async () => {
    clock = new ManualClock(T0);
    executor = new FakeExecutor();
    v = await startVigil({ clock, overrides: { scanExecutor: executor, normaliser: new FakeNormaliser() } });
    const admin = await v.signIn();
    const repo = async (name: string, body: Record<string, unknown>) => {
      const r = await v.request('POST', '/repositories', { token: admin, body: { url: `https://git.example/schedule/${name}`, ...body } });
      expect(r.status, r.text).to.equal(201);
      ids[name] = r.body.id;
    };
    await repo('manual', { scanManualOnly: true });
    await repo('cron', { scanCron: '0 12 * * *', scanIntervalMinutes: 60 });
    await repo('interval', { scanIntervalMinutes: 30 });
    await repo('default', {});
    const c = await v.request('POST', '/containers', { token: admin, body: { image: 'registry.example/schedule/app:1' } });
    ids.container = c.body.id;
  });
  after(async () => { await v.stop(); });

  it('[S1.2.1-27] [S1.3.1-01] an own interval falls due interval minutes after registration: a scan with trigger schedule, lastScheduledScanAt the round instant', async () => {
    at(29);
    await v.services.scanScheduler.runOnce();
    expect(await scansOf('repository', ids.interval)).to.have.length(0);
    at(30);
    const round = await v.services.scanScheduler.runOnce();
    expect(round.ran).to.equal(true);
    const scans = await scansOf('repository', ids.interval);
    expect(scans).to.have.length(1);
    expect(scans[0]).to.include({ trigger: 'schedule', status: 'pending', requested_at: clock.now().toISOString() });
    expect(await lastScheduled('repository', ids.interval)).to.equal(clock.now().toISOString());
    const view = await v.request('GET', `/repositories/${ids.interval}`, { token: await token() });
    expect(view.body.lastScheduledScanAt).to.equal(clock.now().toISOString());
  });

  it('[S1.2.1-32] a round skips a target whose scan is pending, then one whose scan is running, and schedules it again once it ended', async () => {
    at(60);
    await v.services.scanScheduler.runOnce();
    expect(await scansOf('repository', ids.interval), 'pending: skipped').to.have.length(1);
    expect(await lastScheduled('repository', ids.interval)).to.equal(new Date(T0.getTime() + 30 * MINUTE).toISOString());

    executor.holds().holds();
    const runs = await v.services.scanWorker.tick();
    expect((await scansOf('repository', ids.interval))[0].status).to.equal('scanning');
    at(61);
    await v.services.scanScheduler.runOnce();
    expect(await scansOf('repository', ids.interval), 'running: skipped').to.have.length(1);

    executor.held.forEach((h) => h.finish({ artifacts: {}, languages: null, languagesBounded: false, duration: 'PT1S' }));
    await Promise.all(runs);
    await drain();
    at(62);
    await v.services.scanScheduler.runOnce();
    const scans = await scansOf('repository', ids.interval);
    expect(scans, 'overdue and free: scheduled').to.have.length(2);
    expect(scans[1]).to.include({ trigger: 'schedule', status: 'pending' });
  });

  it('[S1.2.1-26] a cron expression wins over an own interval: nothing at the interval, a scan at the cron time', async () => {
    const before = (await scansOf('repository', ids.cron)).length;
    at(2 * 60 + 59); // 11:59, long past the 60-minute interval
    await v.services.scanScheduler.runOnce();
    expect(await scansOf('repository', ids.cron)).to.have.length(before);
    at(3 * 60); // 12:00
    await v.services.scanScheduler.runOnce();
    expect(await scansOf('repository', ids.cron)).to.have.length(before + 1);
  });

  it('[S1.2.1-28] [S1.2.1-29] [S1.2.1-31] a target under the installation default (7 days) is scanned in its own slot, the same weekday and time each week', async () => {
    await drain();
    const target = { kind: 'repository' as const, id: ids.default, scanManualOnly: false, scanIntervalMinutes: null, scanCron: null, registeredAt: T0 };
    const due = nextDueAt(target, null, { defaultIntervalDays: 7 }, clock.now())!;
    expect(due.getTime() - T0.getTime()).to.be.within(0, 7 * 1440 * MINUTE);
    const before = (await scansOf('repository', ids.default)).length;
    clock.set(new Date(due.getTime() - 1));
    await v.services.scanScheduler.runOnce();
    expect(await scansOf('repository', ids.default), 'not before its slot').to.have.length(before);
    clock.set(due);
    await v.services.scanScheduler.runOnce();
    expect(await scansOf('repository', ids.default)).to.have.length(before + 1);
    expect(await lastScheduled('repository', ids.default)).to.equal(due.toISOString());
    await drain();

    const nextWeek = nextDueAt(target, due, { defaultIntervalDays: 7 }, clock.now())!;
    expect(nextWeek.getTime() - due.getTime()).to.equal(7 * 1440 * MINUTE);
    clock.set(new Date(nextWeek.getTime() - 1));
    await v.services.scanScheduler.runOnce();
    expect(await scansOf('repository', ids.default)).to.have.length(before + 1);
    clock.set(nextWeek);
    await v.services.scanScheduler.runOnce();
    expect(await scansOf('repository', ids.default)).to.have.length(before + 2);
    expect((await scansOf('container', ids.container)).length, 'the container under the default has its own slot too').to.be.greaterThan(0);
  });

  it('[S1.2.1-25] a manual-only target is never scheduled', async () => {
    clock.advance(30 * 1440 * MINUTE);
    await v.services.scanScheduler.runOnce();
    expect(await scansOf('repository', ids.manual)).to.have.length(0);
  });

  it('[S1.2.1-30] scan_default_interval_days 0: targets under the default are not scheduled; own intervals still are', async () => {
    await drain();
    const admin = await token();
    expect((await v.request('PATCH', '/settings', { token: admin, body: { scan_default_interval_days: 0 } })).status).to.equal(200);
    const before = { default: (await scansOf('repository', ids.default)).length, interval: (await scansOf('repository', ids.interval)).length };
    clock.advance(30 * 1440 * MINUTE);
    await v.services.scanScheduler.runOnce();
    expect(await scansOf('repository', ids.default)).to.have.length(before.default);
    expect(await scansOf('repository', ids.interval)).to.have.length(before.interval + 1);
    expect((await v.request('PATCH', '/settings', { token: await token(), body: { scan_default_interval_days: 7 } })).status).to.equal(200);
  });

  it('[S1.3.1-19] each round first lapses expired leases', async () => {
    await drain();
    const admin = await token();
    const id = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/schedule/lapse', scanManualOnly: true } })).body.id;
    const scan = (await v.request('POST', `/repositories/${id}/scan`, { token: admin, body: {} })).body;
    executor.holds();
    const [run] = await v.services.scanWorker.tick();
    clock.advance(20 * MINUTE);
    const round = await v.services.scanScheduler.runOnce();
    expect(round.lapsed).to.equal(1);
    expect((await v.database.db.knex('scans').where({ id: scan.id }).first()).status).to.equal('pending');
    executor.held.at(-1)!.finish({ artifacts: {}, languages: null, languagesBounded: false, duration: 'PT1S' });
    expect(await run).to.equal('refused');
  });

  it('[S1.2.1-31] a round over 20,000 targets reads the targets in one query and the busy targets in another', async function () {
    // Read-model rows put in directly (a measuring shortcut, not a registration): none of them is due.
    const now = clock.now().toISOString();
    const knex = v.database.db.knex;
    for (const table of ['repositories', 'containers'] as const) {
      const rows = Array.from({ length: 10_000 }, (_, i) => ({
        id: 500_000 + i, name: `bulk-${i}`, project_id: null, scan_manual_only: false, scan_interval_minutes: i % 3 === 0 ? 1440 : null,
        scan_cron: i % 3 === 1 ? '0 3 * * *' : null, last_scheduled_scan_at: now, created_by: null, created_at: now, updated_at: now,
        ...(table === 'repositories'
          ? { url: `https://git.example/bulk/${i}`, identity: `git.example/bulk/${i}`, uniqueness_key: `bulk-${i}`, branch: 'main', sub_path: '', detected_languages: null }
          : { image: `registry.example/bulk/${i}:1` }),
      }));
      for (let i = 0; i < rows.length; i += 1000) await knex(table).insert(rows.slice(i, i + 1000));
    }
    const queries: string[] = [];
    const listen = (q: { sql: string }) => queries.push(q.sql);
    knex.on('query', listen);
    const started = process.hrtime.bigint();
    try {
      await v.services.scanScheduler.runOnce();
    } finally {
      knex.removeListener('query', listen);
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    // eslint-disable-next-line no-console
    console.log(`      scheduler round over ${20_000 + 5} targets: ${ms.toFixed(0)} ms`);
    expect(queries.filter((q) => /from "repositories"/i.test(q))).to.have.length(1);
    expect(queries.filter((q) => /^select distinct "target_kind", "target_id" from "scans"/i.test(q)), 'busy targets').to.have.length(1);
    expect(queries.filter((q) => /from "scans"/i.test(q)), 'busy targets, and the lapse pass\'s running scans without a lease').to.have.length(2);
    expect(await knex('scans').where('target_id', '>=', 500_000).count({ n: '*' }).first()).to.deep.equal({ n: 0 });
    await knex('repositories').where('id', '>=', 500_000).del();
    await knex('containers').where('id', '>=', 500_000).del();
  });
});
