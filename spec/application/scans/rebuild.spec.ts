import { expect } from 'chai';
import { Knex } from 'knex';
import { ManualClock } from '../../../application/ports/clock';
import { ScanFailure } from '../../../application/ports/scanning';
import { startVigil } from '../../support/vigil';
import { FakeExecutor, FakeNormaliser, result, step } from './fakes';

async function snapshot(knex: Knex) {
  const scans = (await knex('scans').orderBy('id')).map((r: Record<string, unknown>) => JSON.stringify(r));
  const repositories = (await knex('repositories').orderBy('id').select('id', 'detected_languages', 'last_scheduled_scan_at')).map((r: Record<string, unknown>) => JSON.stringify(r));
  return { scans, repositories };
}

describe('Scans read model: a rebuild from the log gives the same rows (trap 2)', function () {
  this.timeout(120_000);

  it('[S1.2.2-02] [S1.2.2-03] [S1.2.2-04] pending, scanning, retried, completed and failed scans and the targets\' scan columns rebuild identically', async () => {
    const clock = new ManualClock(new Date('2026-02-02T08:00:00.000Z'));
    const executor = new FakeExecutor();
    const v = await startVigil({ clock, overrides: { scanExecutor: executor, normaliser: new FakeNormaliser() } });
    try {
      const admin = await v.signIn();
      const repo = async (body: Record<string, unknown>) => (await v.request('POST', '/repositories', { token: admin, body })).body.id as number;
      const done = await repo({ url: 'https://git.example/rebuild/done', scanManualOnly: true });
      const failed = await repo({ url: 'https://git.example/rebuild/failed', scanManualOnly: true });
      const scheduled = await repo({ url: 'https://git.example/rebuild/scheduled', scanIntervalMinutes: 10 });
      for (const id of [done, failed]) await v.request('POST', `/repositories/${id}/scan`, { token: admin, body: {} });
      executor.returns(result({ vulnerabilities: step('grype', [{ ruleId: 'CVE-9' }]) }, ['Go'])).throws(new ScanFailure('permanent', 'authentication refused'));
      await v.services.scanWorker.runOnce();
      clock.advance(10 * 60_000);
      await v.services.scanScheduler.runOnce();
      await v.request('POST', `/repositories/${done}/scan`, { token: admin, body: {} });
      executor.throws(new ScanFailure('transient', 'timeout')).holds();
      const [retried, running] = await v.services.scanWorker.tick();
      expect(await retried).to.equal('retry');
      expect(await v.database.db.knex('scans').where({ target_id: scheduled }).first()).to.not.equal(undefined);

      const before = await snapshot(v.database.db.knex);
      expect(before.scans.length).to.equal(4);
      await v.services.projections.stop();
      await v.services.projections.rebuild();
      expect(await snapshot(v.database.db.knex)).to.deep.equal(before);
      executor.held.forEach((h) => h.finish(result({})));
      expect(await running).to.equal('completed');
    } finally {
      await v.stop();
    }
  });
});
