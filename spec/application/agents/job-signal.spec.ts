import { expect } from 'chai';
import { JobSignal, Waiting } from '../../../application/agents/job-signal';

/** The long polls' wake-up (application/agents/job-signal.ts), with a probe answering what the spec says. */
describe('JobSignal: waiting long polls are woken by new claimable work, not by the same work again', () => {
  const signalOver = (answers: Waiting[]) => {
    let probes = 0;
    const signal = new JobSignal(async () => answers[Math.min(probes++, answers.length - 1)], 20);
    return { signal, probes: () => probes };
  };

  it('[S1.4.7-02] a waiter is woken with the signature of what is claimable for its kind', async () => {
    const { signal } = signalOver([{ plain: null, credentialed: 'c1' }, { plain: 'p1', credentialed: 'c2' }]);
    const [holder, plain] = await Promise.all([signal.wait(true, 2000), signal.wait(false, 2000)]);
    expect(holder).to.equal('c1');
    expect(plain).to.equal('p1');
    expect(signal.waiting).to.equal(0);
  });

  it('the signature it was last woken with does not wake it again; a changed one does', async () => {
    const { signal } = signalOver([{ plain: 'same', credentialed: 'same' }, { plain: 'same', credentialed: 'same' }, { plain: 'same', credentialed: 'same' }, { plain: 'new', credentialed: 'new' }]);
    const started = Date.now();
    expect(await signal.wait(false, 2000, undefined, 'same')).to.equal('new');
    expect(Date.now() - started, 'woken only by the fourth probe').to.be.at.least(40);
  });

  it('nothing claimable: the wait ends empty at its deadline, and polls may skip their claim meanwhile', async () => {
    const signal = new JobSignal(async () => ({ plain: null, credentialed: null }), 100);
    const waiting = signal.wait(false, 300);
    expect(signal.nothingClaimable(), 'no probe yet').to.equal(false);
    await new Promise((r) => setTimeout(r, 150));
    expect(signal.nothingClaimable()).to.equal(true);
    expect(await waiting).to.equal(null);
  });

  it('a poke probes at once and clears what the last probe saw; an aborted wait ends empty', async () => {
    const { signal, probes } = signalOver([{ plain: null, credentialed: null }, { plain: 'p', credentialed: 'p' }]);
    const slow = new JobSignal(async () => ({ plain: null, credentialed: null }), 60_000);
    const controller = new AbortController();
    const aborted = slow.wait(false, 60_000, controller.signal);
    controller.abort();
    expect(await aborted).to.equal(null);
    const woken = signal.wait(false, 5000);
    await new Promise((r) => setTimeout(r, 30));
    signal.poke();
    expect(signal.nothingClaimable()).to.equal(false);
    expect(await woken).to.equal('p');
    expect(probes()).to.be.at.least(2);
  });

  it('[S1.4.7-02] polls arriving together while nobody waits share one probe before waiting, and claim when it finds work', async () => {
    const { signal, probes } = signalOver([{ plain: null, credentialed: null }, { plain: 'p', credentialed: 'p' }]);
    const answers = await Promise.all(Array.from({ length: 50 }, () => signal.nothingClaimableNow()));
    expect(answers.every((a) => a === true), 'nothing claimable: every poll goes to wait').to.equal(true);
    expect(probes(), 'one probe for the fifty polls').to.equal(1);
    expect(await signal.nothingClaimableNow(), 'a fresh probe answers again without another').to.equal(true);
    expect(probes()).to.equal(1);
    await new Promise((r) => setTimeout(r, 30)); // older than the interval: probed again, and now there is work
    expect(await signal.nothingClaimableNow()).to.equal(false);
    expect(probes()).to.equal(2);
    expect(signal.waiting, 'probing registers no waiter').to.equal(0);
    await new Promise((r) => setTimeout(r, 30));
    signal.poke();
    expect(await signal.nothingClaimableNow(), 'work was there at the last probe: the poll claims without probing first').to.equal(false);
    expect(probes()).to.equal(2);
  });

  it('a probe that fails leaves the polls to claim for themselves', async () => {
    const errors: unknown[] = [];
    const signal = new JobSignal(async () => { throw new Error('database away'); }, 20, (e) => errors.push(e));
    expect(await signal.nothingClaimableNow()).to.equal(false);
    expect(errors).to.have.length(1);
  });
});
