import { expect } from 'chai';
import { RunningVigil, startVigil } from '../../support/vigil';

describe('Audit log over HTTP', function () {
  let v: RunningVigil;
  let admin: string;

  before(async () => {
    v = await startVigil();
    admin = await v.signIn();
    await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/audit/one' } });
  });
  after(async () => { await v.stop(); });

  it('lists entries in chain order with actor, address and time, to auditors and administrators only', async () => {
    const r = await v.request('GET', '/audit-log?type=RepositoryRegistered', { token: admin });
    expect(r.status).to.equal(200);
    expect(r.body[0]).to.include({ type: 'RepositoryRegistered', actor: 1, address: '127.0.0.1' });
    expect(r.body[0].hash).to.match(/^[0-9a-f]{64}$/);
    const writer = await v.account(['writer']);
    expect((await v.request('GET', '/audit-log', { token: writer.token })).status).to.equal(403);
    const auditor = await v.account(['auditor']);
    expect((await v.request('GET', '/audit-log', { token: auditor.token })).status).to.equal(200);
  });

  it('verifies the chain, and finds the entry whose event was changed behind its back', async () => {
    const ok = await v.request('GET', '/audit-log/verification', { token: admin });
    expect(ok.body).to.include({ valid: true, brokenAt: null });
    expect(ok.body.entries).to.be.greaterThan(3);
    const entry = (await v.request('GET', '/audit-log?type=RepositoryRegistered', { token: admin })).body[0];
    await v.database.db.knex('events').where({ event_id: entry.eventId }).update({ data: JSON.stringify({ forged: true }) });
    const broken = await v.request('GET', '/audit-log/verification', { token: admin });
    expect(broken.body).to.include({ valid: false, brokenAt: entry.seq });
  });

  describe('finds each kind of tampering (chain scheme 3)', () => {
    let w: RunningVigil;
    let token: string;
    beforeEach(async () => {
      w = await startVigil();
      token = await w.signIn();
      await w.request('POST', '/repositories', { token, body: { url: 'https://git.example/audit/two' } });
    });
    afterEach(async () => { await w.stop(); });
    const registered = async () => (await w.request('GET', '/audit-log?type=RepositoryRegistered', { token })).body[0];
    const verify = async () => (await w.request('GET', '/audit-log/verification', { token })).body;

    it('a change of the stored data that parses to the same JSON (whitespace): the data is hashed as stored', async () => {
      const entry = await registered();
      const events = w.database.db.knex('events').where({ position: entry.position });
      const { data } = await events.clone().first();
      await events.clone().update({ data: ` ${data}` });
      expect(await verify()).to.include({ valid: false, brokenAt: entry.seq, reason: 'the event it stands for is missing or changed' });
    });

    it('a removed event, and an entry pointing at another event', async () => {
      const entry = await registered();
      await w.database.db.knex('audit_log').where({ seq: entry.seq }).update({ event_id: '00000000-0000-7000-8000-000000000000' });
      expect(await verify()).to.include({ valid: false, brokenAt: entry.seq, reason: 'the event it stands for is missing or changed' });
    });

    it('a changed entry field', async () => {
      const entry = await registered();
      await w.database.db.knex('audit_log').where({ seq: entry.seq }).update({ address: '10.0.0.1' });
      expect(await verify()).to.include({ valid: false, brokenAt: entry.seq, reason: 'the entry was changed' });
    });

    it('a removed entry before the newest (removing the newest ones needs the newest hash kept elsewhere to show)', async () => {
      await w.database.db.knex('audit_log').where({ seq: 2 }).del();
      expect(await verify()).to.include({ valid: false, brokenAt: 3, reason: 'entry 2 is missing' });
    });
  });
});
