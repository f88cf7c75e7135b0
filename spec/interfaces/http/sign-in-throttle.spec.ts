import { expect } from 'chai';
import { ManualClock } from '../../../application/ports/clock';
import { ADMIN, RunningVigil, startVigil } from '../../support/vigil';

type Json = Record<string, any>;

/** Events of one type, oldest first, with their data parsed. */
async function eventsOf(v: RunningVigil, type: string): Promise<Json[]> {
  const rows: { data: string }[] = await v.database.db.knex('events').where({ type }).orderBy('position');
  return rows.map((r) => JSON.parse(r.data));
}

const signIn = (v: RunningVigil, username: string, password: string, from?: string) =>
  v.request('POST', '/auth/sign-in', { body: { username, password }, headers: from ? { 'x-forwarded-for': from } : {} });

/**
 * The password throttle (issue #17): failed sign-ins per account name and per client address;
 * past the ceiling every attempt waits for the end of the window, the right password included,
 * and the event log grows by the ceiling, not by the attempts.
 */
describe('Password sign-in throttle', function () {
  this.timeout(120_000);

  describe('with the default ceilings (10 per account, 50 per address, 15 minutes)', () => {
    const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
    let v: RunningVigil;
    before(async () => { v = await startVigil({ clock }); });
    after(async () => { await v.stop(); });

    it('300 wrong passwords, then the right one: 429 with Retry-After; the log grows by the ceiling plus one; after the window the right one signs in', async () => {
      const before = await v.eventCount();
      const statuses: number[] = [];
      for (let i = 0; i < 300; i++) statuses.push((await signIn(v, ADMIN.username, `wrong-password-${i}`)).status);
      expect(statuses.slice(0, 10)).to.deep.equal(Array(10).fill(401));
      expect(new Set(statuses.slice(10))).to.deep.equal(new Set([429]));

      const right = await signIn(v, ADMIN.username, ADMIN.password);
      expect(right.status).to.equal(429);
      expect(right.headers.get('content-type')).to.match(/application\/problem\+json/);
      expect(Number(right.headers.get('retry-after'))).to.be.within(1, 15 * 60);
      expect(right.body.detail).to.equal('Too many failed sign-ins; try again later.');

      // 10 SignInRefused and one SignInFailureCeilingReached, whatever the number of attempts.
      expect(await v.eventCount()).to.equal(before + 11);
      expect(await eventsOf(v, 'SignInRefused')).to.have.length(10);
      const ceilings = await eventsOf(v, 'SignInFailureCeilingReached');
      expect(ceilings).to.have.length(1);
      expect(ceilings[0]).to.deep.include({ scope: 'account', username: 'admin', failures: 10, windowEndsAt: '2026-03-01T10:15:00.000Z' });
      expect(ceilings[0].siem).to.deep.include({ signature: 'VGL-SEC-007', severity: 7 });
      expect(await v.database.db.knex('audit_log').where({ type: 'SignInFailureCeilingReached' })).to.have.length(1);

      clock.advance(15 * 60_000);
      const later = await signIn(v, ADMIN.username, ADMIN.password);
      expect(later.status, later.text).to.equal(200);
      // The window's summary: how many attempts were refused, in one event.
      const ended = await eventsOf(v, 'SignInThrottleEnded');
      expect(ended).to.have.length(1);
      expect(ended[0]).to.deep.include({ scope: 'account', username: 'admin', failures: 10, refused: 291, windowEndedAt: '2026-03-01T10:15:00.000Z' });
    });

    it('a name that does not exist is throttled alike: the answer never says whether the account exists', async () => {
      clock.advance(15 * 60_000);
      const answers = { known: [] as number[], unknown: [] as number[] };
      for (let i = 0; i < 11; i++) {
        answers.known.push((await signIn(v, ADMIN.username, 'not-the-password')).status);
        answers.unknown.push((await signIn(v, 'nobody-here', 'not-the-password')).status);
      }
      expect(answers.unknown).to.deep.equal(answers.known);
      expect(answers.known[10]).to.equal(429);
      const known = await signIn(v, ADMIN.username, 'not-the-password');
      const unknown = await signIn(v, 'nobody-here', 'not-the-password');
      expect(unknown.body).to.deep.equal(known.body);
      expect(unknown.headers.get('retry-after')).to.equal(known.headers.get('retry-after'));
    });
  });

  describe('per client address (behind a trusted proxy)', () => {
    const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
    let v: RunningVigil;
    before(async () => {
      v = await startVigil({ clock, env: {
        VIGIL_TRUSTED_PROXIES: '127.0.0.1', VIGIL_SIGN_IN_FAILURES_PER_ACCOUNT: '4', VIGIL_SIGN_IN_FAILURES_PER_ADDRESS: '6', VIGIL_SIGN_IN_FAILURE_WINDOW: '10m',
      } });
    });
    after(async () => { await v.stop(); });

    it('VIGIL_SIGN_IN_FAILURES_PER_ADDRESS counts failures across different usernames; another address still signs in', async () => {
      for (let i = 0; i < 6; i++) expect((await signIn(v, `someone-${i}`, 'wrong-password', '198.51.100.7')).status).to.equal(401);
      const fresh = await signIn(v, 'someone-new', 'wrong-password', '198.51.100.7');
      expect(fresh.status).to.equal(429);
      expect(Number(fresh.headers.get('retry-after'))).to.be.within(1, 600);
      expect((await signIn(v, ADMIN.username, ADMIN.password, '198.51.100.7')).status).to.equal(429);
      expect((await signIn(v, ADMIN.username, ADMIN.password, '198.51.100.8')).status).to.equal(200);
      const ceilings = await eventsOf(v, 'SignInFailureCeilingReached');
      expect(ceilings).to.have.length(1);
      expect(ceilings[0]).to.deep.include({ scope: 'address', address: '198.51.100.7', failures: 6 });
      const entry = await v.database.db.knex('audit_log').where({ type: 'SignInFailureCeilingReached' }).first();
      expect(entry.address).to.equal('198.51.100.7');
    });

    it('counts an IPv6 address per /64', async () => {
      for (let i = 1; i <= 6; i++) expect((await signIn(v, `v6-${i}`, 'wrong-password', `2001:db8:5:6::${i}`)).status).to.equal(401);
      expect((await signIn(v, 'v6-other', 'wrong-password', '2001:db8:5:6:ffff::1')).status).to.equal(429);
      expect((await signIn(v, 'v6-other', 'wrong-password', '2001:db8:5:7::1')).status).to.equal(401);
    });

    it('VIGIL_SIGN_IN_FAILURES_PER_ACCOUNT counts failures on one name from every address', async () => {
      for (let i = 1; i <= 4; i++) expect((await signIn(v, ADMIN.username, 'wrong-password', `203.0.113.${i}`)).status).to.equal(401);
      expect((await signIn(v, ADMIN.username, ADMIN.password, '203.0.113.99')).status).to.equal(429);
      clock.advance(10 * 60_000);
      expect((await signIn(v, ADMIN.username, ADMIN.password, '203.0.113.99')).status).to.equal(200);
    });

    it('the right password starts the account\'s count again', async () => {
      clock.advance(10 * 60_000);
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 3; i++) expect((await signIn(v, ADMIN.username, 'wrong-password', `192.0.2.${round * 10 + i}`)).status).to.equal(401);
        expect((await signIn(v, ADMIN.username, ADMIN.password, `192.0.2.${round * 10 + 9}`)).status).to.equal(200);
      }
    });
  });
});

describe('Sign-in requests that are not what they seem', function () {
  let v: RunningVigil;
  before(async () => { v = await startVigil({ env: { VIGIL_TRUSTED_PROXIES: '127.0.0.1' } }); });
  after(async () => { await v.stop(); });

  it('a NUL or another control character in the username or password answers 400; the refusal is audited with the name escaped', async () => {
    const before = await v.eventCount();
    const nul = await signIn(v, 'admin\u0000', ADMIN.password);
    expect(nul.status, nul.text).to.equal(400);
    expect(nul.headers.get('content-type')).to.match(/application\/problem\+json/);
    expect(nul.body.detail).to.match(/control characters/);
    // 100 characters typed (the schema's bound): escaped, the name passes 100 and is cut with "…".
    const forged = await signIn(v, `admin\n${'x'.repeat(94)}`, 'whatever-password');
    expect(forged.status).to.equal(400);
    const password = await signIn(v, 'admin', 'correct-horse\u0000battery');
    expect(password.status).to.equal(400);
    expect(await v.eventCount()).to.equal(before + 3);

    const refusals = await eventsOf(v, 'SignInRefused');
    expect(refusals.slice(-3).map((r) => r.username)).to.deep.equal(['admin\\u0000', `admin\\u000a${'x'.repeat(89)}…`, 'admin']);
    expect(refusals.slice(-3).map((r) => r.reason)).to.deep.equal(['control_characters', 'control_characters', 'control_characters']);
    const entries = await v.database.db.knex('audit_log').where({ type: 'SignInRefused' });
    expect(entries).to.have.length(3);
    const verification = await v.request('GET', '/audit-log/verification', { token: await v.signIn() });
    expect(verification.body.valid).to.equal(true);
  });

  it('with VIGIL_TRUSTED_PROXIES, an X-Forwarded-For entry that is not an IP address never becomes an event\'s address', async () => {
    const junk = `not-an-address-${'z'.repeat(85)}`;
    expect(junk).to.have.length(100);
    const r = await signIn(v, 'admin', 'wrong-password', junk);
    expect(r.status).to.equal(401);
    const behind = await signIn(v, 'admin', 'wrong-password', `198.51.100.23, ${junk}`);
    expect(behind.status).to.equal(401);
    const rows: { metadata: string }[] = await v.database.db.knex('events').select('metadata');
    expect(rows.map((x) => x.metadata).join('\n')).not.to.contain('not-an-address');
    const entries = await v.database.db.knex('audit_log').where({ type: 'SignInRefused' }).orderBy('seq', 'desc').limit(2);
    expect(entries.map((e: Json) => e.address)).to.deep.equal(['198.51.100.23', '127.0.0.1']);
  });
});
