import { expect } from 'chai';
import { Secret, TOTP } from 'otpauth';
import { ManualClock } from '../../../application/ports/clock';
import { RunningVigil, startVigil } from '../../support/vigil';

type Json = Record<string, any>;
const KEY = Buffer.alloc(32, 7).toString('base64');
const PASSWORD = 'a-long-enough-password';

async function eventsOf(v: RunningVigil, type: string): Promise<Json[]> {
  const rows: { data: string }[] = await v.database.db.knex('events').where({ type }).orderBy('position');
  return rows.map((r) => JSON.parse(r.data));
}

function codeAt(secret: string, at: Date): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: at.getTime() });
}

/** The local second factor (issue #14): TOTP enrolment, the sign-in challenge, backup codes, the failure ceiling, the administrator's reset. */
describe('Local second factor (TOTP)', function () {
  this.timeout(90_000);
  const clock = new ManualClock(new Date('2026-05-04T09:00:00.000Z'));
  let v: RunningVigil;
  let user: { id: number; token: string; username: string };
  let secret: string;
  let backupCodes: string[];
  before(async () => {
    v = await startVigil({ clock, env: { ENCRYPTION_KEY: KEY } });
    user = await v.account(['writer'], 'tess');
  });
  after(async () => { await v?.stop(); });

  const signIn = () => v.request('POST', '/auth/sign-in', { body: { username: 'tess', password: PASSWORD } });
  const answer = (challenge: string, body: Json) => v.request('POST', '/auth/second-factor', { body: { challenge, ...body } });

  it('[S2.6-37] enrolment answers the secret and a QR-ready otpauth URI; the secret enters the log only sealed; a wrong code confirms nothing', async () => {
    const begun = await v.request('POST', '/me/second-factor', { token: user.token });
    expect(begun.status, begun.text).to.equal(201);
    secret = begun.body.secret;
    expect(secret).to.match(/^[A-Z2-7]{32}$/);
    expect(begun.body.otpauthUri).to.match(new RegExp(`^otpauth://totp/Vigil:tess\\?issuer=Vigil&secret=${secret}&algorithm=SHA1&digits=6&period=30$`));
    expect(begun.headers.get('cache-control')).to.equal('no-store');
    const sealed = (await eventsOf(v, 'SecondFactorEnrolmentBegun'))[0];
    expect(sealed.secret).to.include({ alg: 'A256GCM' });
    const all: { data: string }[] = await v.database.db.knex('events').select('data');
    for (const e of all) expect(e.data).not.to.include(secret);

    const before = await v.eventCount();
    const wrong = await v.request('POST', '/me/second-factor/confirmation', { token: user.token, body: { code: '000000' === codeAt(secret, clock.now()) ? '111111' : '000000' } });
    expect(wrong.status).to.equal(400);
    expect(await v.eventCount()).to.equal(before);
    expect((await v.request('GET', '/me/second-factor', { token: user.token })).body).to.deep.equal({ status: 'pending', backupCodesLeft: 0 });
  });

  it('[S2.6-37] a current code confirms it: ten single-use backup codes, answered once, stored hashed; signalled VGL-SEC-010', async () => {
    const confirmed = await v.request('POST', '/me/second-factor/confirmation', { token: user.token, body: { code: codeAt(secret, clock.now()) } });
    expect(confirmed.status, confirmed.text).to.equal(200);
    backupCodes = confirmed.body.backupCodes;
    expect(backupCodes).to.have.length(10);
    expect(new Set(backupCodes).size).to.equal(10);
    for (const c of backupCodes) expect(c).to.match(/^[0-9a-z]{5}-[0-9a-z]{5}-[0-9a-z]{2}$/);
    const [enrolled] = await eventsOf(v, 'SecondFactorEnrolled');
    expect(enrolled.siem).to.deep.include({ signature: 'VGL-SEC-010', severity: 6 });
    expect(enrolled.backupCodeHashes).to.have.length(10);
    const text = JSON.stringify(enrolled);
    for (const c of backupCodes) expect(text).not.to.include(c);
    expect((await v.request('GET', '/me/second-factor', { token: user.token })).body).to.deep.equal({ status: 'active', backupCodesLeft: 10 });
    expect((await v.request('POST', '/me/second-factor', { token: user.token })).status).to.equal(409);
  });

  it('the right password of an enrolled account answers 401 second-factor-required with a challenge; a current code signs in, once per time step', async () => {
    clock.advance(30_000);
    const first = await signIn();
    expect(first.status).to.equal(401);
    expect(first.body.type).to.equal('urn:vigil:problem:second-factor-required');
    expect(first.body.challenge).to.match(/^vgl_c_/);
    const code = codeAt(secret, clock.now());
    const ok = await answer(first.body.challenge, { code });
    expect(ok.status, ok.text).to.equal(200);
    expect((await v.request('GET', '/me', { token: ok.body.token })).body.username).to.equal('tess');
    // The challenge is spent, and the same code does not open a second session.
    expect((await answer(first.body.challenge, { code })).status).to.equal(401);
    const second = await signIn();
    const replay = await answer(second.body.challenge, { code });
    expect(replay.status).to.equal(401);
    expect(replay.body.type).to.equal('urn:vigil:problem:second-factor-wrong-code');
    clock.advance(30_000);
    expect((await answer(second.body.challenge, { code: codeAt(secret, clock.now()) })).status).to.equal(200);
  });

  it('[S2.6-33] a backup code signs in once and signals VGL-SEC-006', async () => {
    const challenge = (await signIn()).body.challenge;
    const ok = await answer(challenge, { backupCode: backupCodes[3].toUpperCase() });
    expect(ok.status, ok.text).to.equal(200);
    const consumed = await eventsOf(v, 'SecondFactorBackupCodeConsumed');
    expect(consumed).to.have.length(1);
    expect(consumed[0]).to.deep.include({ accountId: user.id, index: 3, left: 9 });
    expect(consumed[0].siem).to.deep.include({ signature: 'VGL-SEC-006', severity: 6 });
    const again = await answer((await signIn()).body.challenge, { backupCode: backupCodes[3] });
    expect(again.status).to.equal(401);
    expect(await eventsOf(v, 'SecondFactorBackupCodeConsumed')).to.have.length(1);
  });

  it('[S2.6-35] wrong codes up to the ceiling (5) destroy the challenge, signalled VGL-SEC-008 once; the right code is then refused', async () => {
    const challenge = (await signIn()).body.challenge;
    const right = codeAt(secret, clock.now());
    const wrong = right === '123456' ? '654321' : '123456';
    const statuses: string[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await answer(challenge, { code: wrong })).body.type);
    expect(statuses.slice(0, 4)).to.deep.equal(Array(4).fill('urn:vigil:problem:second-factor-wrong-code'));
    expect(statuses[4]).to.equal('urn:vigil:problem:second-factor-challenge-ended');
    const destroyed = await eventsOf(v, 'SecondFactorChallengeDestroyed');
    expect(destroyed).to.have.length(1);
    expect(destroyed[0]).to.deep.include({ accountId: user.id, failures: 5 });
    expect(destroyed[0].siem).to.deep.include({ signature: 'VGL-SEC-008', severity: 7 });
    clock.advance(30_000);
    const after = await answer(challenge, { code: codeAt(secret, clock.now()) });
    expect(after.status).to.equal(401);
    expect(after.body.type).to.equal('urn:vigil:problem:second-factor-challenge-ended');
  });

  it('neither or both of code and backupCode: 400, nothing written', async () => {
    const challenge = (await signIn()).body.challenge;
    const before = await v.eventCount();
    expect((await answer(challenge, {})).status).to.equal(400);
    expect((await answer(challenge, { code: '123456', backupCode: backupCodes[0] })).status).to.equal(400);
    expect(await v.eventCount()).to.equal(before);
  });

  it('[S2.6-37] an administrator resets the second factor (audited, VGL-SEC-010); another account may not; the password alone then signs in', async () => {
    expect((await v.request('DELETE', `/accounts/${user.id}/second-factor`, { token: user.token })).status).to.equal(403);
    const admin = await v.signIn();
    const reset = await v.request('DELETE', `/accounts/${user.id}/second-factor`, { token: admin });
    expect(reset.status, reset.text).to.equal(204);
    const [event] = await eventsOf(v, 'SecondFactorReset');
    expect(event.siem).to.deep.include({ signature: 'VGL-SEC-010' });
    const row = await v.database.db.knex('audit_log').where({ type: 'SecondFactorReset' }).first();
    expect(row).to.not.equal(undefined);
    expect((await signIn()).status).to.equal(200);
    expect((await v.request('DELETE', `/accounts/${user.id}/second-factor`, { token: admin })).status).to.equal(404);
  });

  it('without ENCRYPTION_KEY an enrolment is refused (409) and nothing is written', async () => {
    const plain = await startVigil();
    try {
      const token = await plain.signIn();
      const before = await plain.eventCount();
      const r = await plain.request('POST', '/me/second-factor', { token });
      expect(r.status).to.equal(409);
      expect(r.body.detail).to.match(/ENCRYPTION_KEY/);
      expect(await plain.eventCount()).to.equal(before);
    } finally {
      await plain.stop();
    }
  });
});
