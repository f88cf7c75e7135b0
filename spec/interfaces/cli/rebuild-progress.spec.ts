import { expect } from 'chai';
import { Writable } from 'node:stream';
import { rebuildProjections } from '../../../interfaces/cli/rebuild';
import { rebuildProgress } from '../../../interfaces/cli/rebuild-progress';
import { allProjections } from '../../../projections';
import { ProjectionRunner } from '../../../projections/engine/projection-runner';
import { seedFindings } from '../../support/backlog';
import { RunningVigil, startVigil } from '../../support/vigil';

/** A stream that keeps what is written, as a CI log would (not a terminal). */
function logStream(): { stream: Writable; text: () => string } {
  let text = '';
  return { stream: new Writable({ write(chunk, _e, done) { text += chunk; done(); } }), text: () => text };
}

/** Issue #15: `npm run projections:rebuild` shows its progress with cli-progress: events done, rate, ETA. */
describe('projections:rebuild progress', function () {
  this.timeout(60_000);
  let v: RunningVigil;
  before(async () => {
    v = await startVigil();
    const admin = await v.signIn();
    const repo = await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/progress/one' } });
    await seedFindings(v, { kind: 'repository', id: repo.body.id }, Array.from({ length: 120 }, (_, i) => ({ ruleId: `CVE-2026-${1000 + i}` })));
  });
  after(async () => v?.stop());

  it('[#15] writes events done of the log\'s total, the rate and the ETA, outside a terminal too', async () => {
    const log = logStream();
    const progress = rebuildProgress(1000, log.stream, 5);
    for (const done of [100, 400, 700]) {
      progress.update(done);
      await new Promise((r) => setTimeout(r, 20));
    }
    progress.stop();
    const lines = log.text().split('\n').filter(Boolean);
    expect(lines.some((l) => /\| 400\/1000 events \| [\d,]+ events\/s \| ETA \d+s/.test(l) || /\| 700\/1000 events/.test(l)), log.text()).to.equal(true);
    expect(lines[lines.length - 1]).to.match(/100% \| 1000\/1000 events \| [\d,]+ events\/s \| ETA 0s/);
  });

  it('[#15] a rebuild reports every event of the log as done, batch by batch, and its result lines stay on the standard output', async () => {
    await v.services.projections.stop();
    const runner = new ProjectionRunner(v.database.db, v.services.store as never, allProjections, { batchSize: 40 });
    const total = await runner.eventsInLog();
    expect(total).to.equal(await v.eventCount());
    const seen: number[] = [];
    await runner.rebuild(runner.projections, (done) => seen.push(done));
    expect(seen.length).to.be.greaterThan(2);
    expect(seen.every((d, i) => i === 0 || d >= seen[i - 1])).to.equal(true);
    expect(Math.max(...seen)).to.equal(total);

    const log = logStream();
    const out: string[] = [];
    await rebuildProjections(runner, [], (line) => out.push(line), log.stream);
    expect(log.text()).to.match(new RegExp(`100% \\| ${total}/${total} events`));
    // The result line names every projection rebuilt, in replay order (projections/index.ts).
    expect(out[out.length - 1].startsWith(`Rebuilt ${runner.projections.map((p) => p.name).join(', ')}`), out[out.length - 1]).to.equal(true);
    expect(out.join('\n')).not.to.contain('events/s');
  });
});
