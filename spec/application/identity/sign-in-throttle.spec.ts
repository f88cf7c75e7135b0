import { expect } from 'chai';
import { SignInThrottle } from '../../../application/identity/sign-in-throttle';

describe('SignInThrottle (issue #17)', () => {
  const limits = { perAccount: 3, perAddress: 5, windowMs: 60_000 };

  it('counts every allowed attempt at once; past the ceiling it refuses, reporting the ceiling once per window', () => {
    const t = new SignInThrottle(limits);
    for (let i = 0; i < 3; i++) expect(t.attempt('alice', '192.0.2.1', 1000 + i)).to.deep.equal({ allowed: true });
    const first = t.attempt('alice', '192.0.2.1', 2000);
    expect(first).to.deep.equal({ allowed: false, retryAfterSeconds: 59, ceilingsReached: [{ scope: 'account', subject: 'alice', failures: 3, windowEndsAt: new Date(61_000).toISOString() }] });
    expect(t.attempt('alice', '192.0.2.9', 3000)).to.deep.include({ allowed: false, ceilingsReached: [] });
    expect(t.attempt('bob', '192.0.2.1', 3000)).to.deep.equal({ allowed: true });
  });

  it('refuses until the window ends, then hands out one summary with the count refused', () => {
    const t = new SignInThrottle(limits);
    for (let i = 0; i < 3; i++) t.attempt('alice', '192.0.2.1', 0);
    for (let i = 0; i < 7; i++) expect(t.attempt('alice', '192.0.2.1', 10_000).allowed).to.equal(false);
    expect(t.drain(59_999)).to.deep.equal([]);
    expect(t.drain(60_000)).to.deep.equal([{ scope: 'account', subject: 'alice', failures: 3, refused: 7, windowStartedAt: new Date(0).toISOString(), windowEndedAt: new Date(60_000).toISOString() }]);
    expect(t.drain(60_001)).to.deep.equal([]);
    expect(t.attempt('alice', '192.0.2.1', 60_000)).to.deep.equal({ allowed: true });
  });

  it('a window replaced by a new attempt before drain() still owes its summary', () => {
    const t = new SignInThrottle(limits);
    for (let i = 0; i < 4; i++) t.attempt('alice', '192.0.2.1', 0);
    t.attempt('alice', '192.0.2.1', 70_000);
    expect(t.drain(70_000).map((s) => s.refused)).to.deep.equal([1]);
  });

  it('counts an address across names, and the right password gives back the attempt', () => {
    const t = new SignInThrottle(limits);
    for (let i = 0; i < 5; i++) expect(t.attempt(`user${i}`, '192.0.2.1', 0).allowed).to.equal(true);
    const refused = t.attempt('user9', '192.0.2.1', 0);
    expect(refused).to.deep.include({ allowed: false });
    expect(refused.allowed === false && refused.ceilingsReached.map((c) => c.scope)).to.deep.equal(['address']);

    const u = new SignInThrottle(limits);
    for (let round = 0; round < 5; round++) {
      expect(u.attempt('alice', `192.0.2.${round}`, 0).allowed).to.equal(true);
      expect(u.attempt('alice', `192.0.2.${round}`, 0).allowed).to.equal(true);
      u.succeeded('alice', `192.0.2.${round}`);
    }
  });
});
