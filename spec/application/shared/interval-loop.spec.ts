import { expect } from 'chai';
import { IntervalLoop, LoopRun } from '../../../application/shared/interval-loop';

const HOUR = 3_600_000;
const until = async (probe: () => boolean) => { while (!probe()) await new Promise((r) => setTimeout(r, 5)); };

/** The one background loop (schedulers, the SIEM deliverer, the audit mirror). */
describe('IntervalLoop', () => {
  it('runs at start, then waits for its interval; wake() runs it again without waiting (the run says it was woken)', async () => {
    const runs: LoopRun[] = [];
    const loop = new IntervalLoop(async (run) => { runs.push(run); }, () => undefined);
    loop.wake(); // before start: nothing
    await new Promise((r) => setTimeout(r, 20));
    expect(runs).to.have.length(0);
    loop.start(HOUR);
    await until(() => runs.length === 1);
    loop.wake();
    await until(() => runs.length === 2);
    expect(runs).to.deep.equal([{ woken: false }, { woken: true }]);
    await loop.stop();
    loop.wake(); // after stop: nothing
    await new Promise((r) => setTimeout(r, 20));
    expect(runs).to.have.length(2);
  });

  it('never doubles a run: wakes during a run give one more run after it; stop() waits for the run in progress', async () => {
    let active = 0;
    let most = 0;
    let runs = 0;
    let release: () => void = () => undefined;
    const loop = new IntervalLoop(async () => {
      active += 1; most = Math.max(most, active); runs += 1;
      await new Promise<void>((r) => { release = r; });
      active -= 1;
    }, () => undefined);
    loop.start(HOUR);
    await until(() => runs === 1);
    loop.wake(); loop.wake(); loop.wake();
    release();
    await until(() => runs === 2);
    expect(most).to.equal(1);
    const stopped = loop.stop();
    let done = false;
    void stopped.then(() => { done = true; });
    await new Promise((r) => setTimeout(r, 20));
    expect(done, 'waits for the run').to.equal(false);
    release();
    await stopped;
    expect(runs).to.equal(2);
  });

  it('a failed run is reported and the loop goes on', async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const loop = new IntervalLoop(async () => { runs += 1; if (runs === 1) throw new Error('boom'); }, (e) => errors.push(e));
    loop.start(HOUR);
    await until(() => errors.length === 1);
    loop.wake();
    await until(() => runs === 2);
    await loop.stop();
    expect((errors[0] as Error).message).to.equal('boom');
  });
});
