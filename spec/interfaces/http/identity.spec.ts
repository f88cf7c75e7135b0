import { expect } from 'chai';
import { ManualClock } from '../../../application/ports/clock';
import { streams } from '../../../domain/shared/streams';
import { ADMIN, RunningVigil, startVigil } from '../../support/vigil';

describe('Identity and access over HTTP', function () {
  let v: RunningVigil;
  let admin: string;
  const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));

  before(async () => {
    v = await startVigil({ clock });
    admin = await v.signIn();
  });
  after(async () => { await v.stop(); });

  describe('bootstrap and sign-in', () => {
    it('[S1.5-19] creates the bootstrap administrator from VIGIL_BOOTSTRAP_USERNAME/_PASSWORD while no account exists, once', async () => {
      const accounts = await v.request('GET', '/accounts', { token: admin });
      expect(accounts.status).to.equal(200);
      expect(accounts.body.filter((a: { username: string }) => a.username === ADMIN.username)).to.have.length(1);
      expect(accounts.body[0].roles).to.deep.equal(['administrator']);
      expect(await v.services.identity.bootstrap('someone-else', 'another-long-password')).to.equal(false);
    });

    it('signs in with a password and answers {token, expiresAt, account}', async () => {
      const r = await v.request('POST', '/auth/sign-in', { body: ADMIN });
      expect(r.status).to.equal(200);
      expect(r.body).to.have.keys('token', 'expiresAt', 'account');
      expect(r.body.account.username).to.equal('admin');
      expect(r.body.expiresAt).to.equal('2026-03-01T22:00:00.000Z');
    });

    it('[S1.5-06] refuses a wrong password and an unknown user with the same 401 problem', async () => {
      const wrong = await v.request('POST', '/auth/sign-in', { body: { username: 'admin', password: 'not-the-password' } });
      const unknown = await v.request('POST', '/auth/sign-in', { body: { username: 'nobody', password: 'not-the-password' } });
      expect(wrong.status).to.equal(401);
      expect(unknown.status).to.equal(401);
      expect(wrong.headers.get('content-type')).to.match(/application\/problem\+json/);
      expect(wrong.body).to.deep.equal(unknown.body);
      expect(wrong.body).not.to.have.property('type');
    });

    it('[S1.5-15] ends a session VIGIL_SESSION_LIFETIME (12h) after its start', async () => {
      const token = await v.signIn();
      for (let i = 0; i < 12; i++) {
        clock.advance(59 * 60_000); // keep it from idling out
        expect((await v.request('GET', '/me', { token })).status, `after ${i + 1} steps`).to.equal(200);
      }
      clock.advance(13 * 60_000);
      expect((await v.request('GET', '/me', { token })).status).to.equal(401);
      admin = await v.signIn();
    });

    it('[S1.5-16] ends a session after VIGIL_SESSION_IDLE (60m) without a request', async () => {
      const token = await v.signIn();
      clock.advance(59 * 60_000);
      expect((await v.request('GET', '/me', { token })).status).to.equal(200);
      clock.advance(61 * 60_000);
      expect((await v.request('GET', '/me', { token })).status).to.equal(401);
      admin = await v.signIn();
    });

    it('ends a session on sign-out', async () => {
      const token = await v.signIn();
      expect((await v.request('POST', '/auth/sign-out', { token })).status).to.equal(204);
      expect((await v.request('GET', '/me', { token })).status).to.equal(401);
    });
  });

  describe('accounts', () => {
    it('lets an administrator create an account and refuses a taken username with 409', async () => {
      const r = await v.request('POST', '/accounts', { token: admin, body: { username: 'writer1', displayName: 'Wendy', password: 'twelve-chars-ok', roles: ['writer'] } });
      expect(r.status).to.equal(201);
      expect(r.body).to.include({ username: 'writer1', displayName: 'Wendy', active: true });
      const again = await v.request('POST', '/accounts', { token: admin, body: { username: 'WRITER1', password: 'twelve-chars-ok', roles: ['writer'] } });
      expect(again.status).to.equal(409);
    });

    it('refuses a password under 12 characters and an unknown role with 400, writing nothing', async () => {
      const before = await v.eventCount();
      const short = await v.request('POST', '/accounts', { token: admin, body: { username: 'short', password: 'eleven-char', roles: ['writer'] } });
      const role = await v.request('POST', '/accounts', { token: admin, body: { username: 'role', password: 'twelve-chars-ok', roles: ['emperor'] } });
      expect(short.status).to.equal(400);
      expect(role.status).to.equal(400);
      expect(role.body.detail).to.match(/Unknown role "emperor"/);
      expect(await v.eventCount()).to.equal(before);
    });

    it('refuses account management to other roles with 403 and to keys with 403', async () => {
      const ciso = await v.account(['ciso']);
      expect((await v.request('GET', '/accounts', { token: ciso.token })).status).to.equal(403);
      const key = await v.key(admin, { name: 'k', scopes: ['read'] });
      const byKey = await v.request('GET', '/accounts', { apiKey: key.key });
      expect(byKey.status).to.equal(403);
      expect(byKey.body.detail).to.match(/may not call this route/);
    });

    it('[S1.5-06] a deactivated account\'s session and keys answer 401', async () => {
      const user = await v.account(['writer']);
      const key = await v.key(user.token, { name: 'k', scopes: ['read'] });
      expect((await v.request('GET', '/me', { apiKey: key.key })).status).to.equal(200);
      expect((await v.request('PATCH', `/accounts/${user.id}`, { token: admin, body: { active: false } })).status).to.equal(200);
      expect((await v.request('GET', '/me', { apiKey: key.key })).status).to.equal(401);
      expect((await v.request('GET', '/me', { token: user.token })).status).to.equal(401);
    });
  });

  describe('deactivation', () => {
    it('deactivating an account ends its sessions: reactivating it does not bring them back', async () => {
      const writer = await v.account(['writer']);
      const { key } = await v.key(writer.token, { name: 'k', scopes: ['read'] });
      expect((await v.request('PATCH', `/accounts/${writer.id}`, { token: admin, body: { active: false } })).status).to.equal(200);
      expect((await v.request('PATCH', `/accounts/${writer.id}`, { token: admin, body: { active: true } })).status).to.equal(200);
      expect((await v.request('GET', '/me', { token: writer.token })).status).to.equal(401);
      const ended = await v.database.db.knex('sessions').where({ account_id: writer.id });
      expect(ended.every((row: { ended_at: string | null }) => row.ended_at !== null)).to.equal(true);
      // Keys are not sessions: the reactivated account's key answers again, and it signs in anew.
      expect((await v.request('GET', '/me', { apiKey: key })).status).to.equal(200);
      expect((await v.request('POST', '/auth/sign-in', { body: { username: writer.username, password: 'a-long-enough-password' } })).status).to.equal(200);
    });

    it('changing only an account\'s roles keeps its sessions', async () => {
      const writer = await v.account(['writer']);
      expect((await v.request('PATCH', `/accounts/${writer.id}`, { token: admin, body: { roles: ['reader'] } })).status).to.equal(200);
      const me = await v.request('GET', '/me', { token: writer.token });
      expect(me.status).to.equal(200);
      expect(me.body.roles).to.deep.equal(['reader']);
    });
  });

  describe('integration keys', () => {
    it('[S1.2.4-08] shows the secret once, in the 201 answer only', async () => {
      const r = await v.request('POST', '/api-keys', { token: admin, body: { name: 'ci', scopes: ['read', 'scan'] } });
      expect(r.status).to.equal(201);
      expect(r.body.key).to.match(/^vgl_k_/);
      const list = await v.request('GET', '/api-keys', { token: admin });
      expect(JSON.stringify(list.body)).not.to.contain(r.body.key);
      const stored = await v.database.db.knex('events').where('type', 'ApiKeyIssued');
      expect(JSON.stringify(stored)).not.to.contain(r.body.key);
    });

    it('[S1.5-01] [S1.5-02] accepts a key as Authorization: Bearer and as X-API-Key', async () => {
      const { key } = await v.key(admin, { name: 'both', scopes: ['read'] });
      const bearer = await v.request('GET', '/me', { token: key });
      const header = await v.request('GET', '/me', { apiKey: key });
      expect(bearer.status).to.equal(200);
      expect(header.status).to.equal(200);
      expect(header.body).to.include({ credential: 'key' });
      expect(header.body.scopes).to.deep.equal(['read']);
    });

    it('[S1.2.4-01] refuses an unknown scope with 400', async () => {
      const r = await v.request('POST', '/api-keys', { token: admin, body: { name: 'x', scopes: ['root'] } });
      expect(r.status).to.equal(400);
      expect(r.body.detail).to.match(/Unknown scope "root"/);
    });

    it('[S1.2.4-02] never gives a key more than its account: a reader cannot hold scan or imports', async () => {
      const reader = await v.account(['reader']);
      const r = await v.request('POST', '/api-keys', { token: reader.token, body: { name: 'x', scopes: ['read', 'scan'] } });
      expect(r.status).to.equal(403);
      expect(r.body.detail).to.match(/scan/);
      const auditor = await v.account(['auditor']);
      const imports = await v.request('POST', '/api-keys', { token: auditor.token, body: { name: 'x', scopes: ['sarif_import'] } });
      expect(imports.status).to.equal(403);
    });

    it('[S1.5-07] a key without the route\'s scope answers 403 naming the scope', async () => {
      const { key } = await v.key(admin, { name: 'scan only', scopes: ['scan'] });
      const r = await v.request('GET', '/repositories', { apiKey: key });
      expect(r.status).to.equal(403);
      expect(r.body.detail).to.equal('This key lacks scope read.');
    });

    it('[S1.2.4-07] a revoked key answers 401 on its next use', async () => {
      const { id, key } = await v.key(admin, { name: 'soon revoked', scopes: ['read'] });
      expect((await v.request('DELETE', `/api-keys/${id}`, { token: admin })).status).to.equal(204);
      const r = await v.request('GET', '/me', { apiKey: key });
      expect(r.status).to.equal(401);
      const list = await v.request('GET', '/api-keys', { token: admin });
      expect(list.body.find((k: { id: number }) => k.id === id).state).to.equal('revoked');
    });

    it('[S1.2.4-06] a key past its expiresAt answers 401', async () => {
      const expiresAt = new Date(clock.now().getTime() + 3600_000).toISOString();
      const { key } = await v.key(admin, { name: 'short-lived', scopes: ['read'], expiresAt });
      expect((await v.request('GET', '/me', { apiKey: key })).status).to.equal(200);
      clock.advance(3600_001);
      expect((await v.request('GET', '/me', { apiKey: key })).status).to.equal(401);
      admin = await v.signIn();
    });

    it('[S1.5-06] answers 401 alike for no key, an unknown key and a malformed header', async () => {
      const none = await v.request('GET', '/me');
      const unknown = await v.request('GET', '/me', { apiKey: 'vgl_k_unknown' });
      const garbage = await v.request('GET', '/me', { headers: { authorization: 'Basic Zm9vOmJhcg==' } });
      for (const r of [none, unknown, garbage]) {
        expect(r.status).to.equal(401);
        expect(r.body.detail).to.equal('A valid credential is required.');
      }
    });

    it('[S1.5-13] an administrator\'s own password change revokes the keys that account issued', async () => {
      const other = await v.account(['administrator']);
      const { key } = await v.key(other.token, { name: 'k', scopes: ['read'] });
      const changed = await v.request('PUT', '/me/password', { token: other.token, body: { currentPassword: 'a-long-enough-password', newPassword: 'a-brand-new-password' } });
      expect(changed.status).to.equal(204);
      expect((await v.request('GET', '/me', { apiKey: key })).status).to.equal(401);
      expect((await v.request('POST', '/auth/sign-in', { body: { username: other.username, password: 'a-brand-new-password' } })).status).to.equal(200);
    });

    it('a writer\'s own password change keeps the keys that account issued', async () => {
      const writer = await v.account(['writer']);
      const { key } = await v.key(writer.token, { name: 'k', scopes: ['read'] });
      await v.request('PUT', '/me/password', { token: writer.token, body: { currentPassword: 'a-long-enough-password', newPassword: 'a-brand-new-password' } });
      expect((await v.request('GET', '/me', { apiKey: key })).status).to.equal(200);
    });

    it('refuses a password change with a wrong current password (403) and writes nothing', async () => {
      const writer = await v.account(['writer']);
      const before = await v.eventCount();
      const r = await v.request('PUT', '/me/password', { token: writer.token, body: { currentPassword: 'wrong-password!', newPassword: 'a-brand-new-password' } });
      expect(r.status).to.equal(403);
      expect(await v.eventCount()).to.equal(before);
    });

    it('changing one\'s own password ends one\'s other sessions and keeps the one that made the change', async () => {
      const writer = await v.account(['writer']);
      const laptop = await v.signIn(writer.username, 'a-long-enough-password');
      const phone = await v.signIn(writer.username, 'a-long-enough-password');
      const otherAccount = await v.account(['writer']);
      const changed = await v.request('PUT', '/me/password', { token: laptop, body: { currentPassword: 'a-long-enough-password', newPassword: 'a-brand-new-password' } });
      expect(changed.status).to.equal(204);
      expect((await v.request('GET', '/me', { token: laptop })).status).to.equal(200);
      expect((await v.request('GET', '/me', { token: phone })).status).to.equal(401);
      expect((await v.request('GET', '/me', { token: writer.token })).status).to.equal(401);
      expect((await v.request('GET', '/me', { token: otherAccount.token })).status).to.equal(200);
    });

    it('refuses a new password holding a control character (400), so that every password set can sign in', async () => {
      const writer = await v.account(['writer']);
      const before = await v.eventCount();
      const own = await v.request('PUT', '/me/password', { token: writer.token, body: { currentPassword: 'a-long-enough-password', newPassword: 'a-brand-new\u0000password' } });
      const reset = await v.request('POST', `/accounts/${writer.id}/password-reset`, { token: admin, body: { newPassword: 'reset-password\n123' } });
      const created = await v.request('POST', '/accounts', { token: admin, body: { username: 'tabbed', password: 'twelve-chars\tok', roles: ['writer'] } });
      for (const r of [own, reset, created]) {
        expect(r.status).to.equal(400);
        expect(r.body.detail).to.match(/control characters/);
      }
      expect(await v.eventCount()).to.equal(before);
    });

    it('[S1.5-14] a password reset revokes that account\'s keys and ends its sessions', async () => {
      const writer = await v.account(['writer']);
      const { key } = await v.key(writer.token, { name: 'k', scopes: ['read'] });
      const r = await v.request('POST', `/accounts/${writer.id}/password-reset`, { token: admin, body: { newPassword: 'reset-password-123' } });
      expect(r.status).to.equal(204);
      expect((await v.request('GET', '/me', { apiKey: key })).status).to.equal(401);
      expect((await v.request('GET', '/me', { token: writer.token })).status).to.equal(401);
    });

    it('[S1.5-14] records a password reset and the revocations of the account\'s keys in one commit', async () => {
      const writer = await v.account(['writer']);
      const keys = [await v.key(writer.token, { name: 'one', scopes: ['read'] }), await v.key(writer.token, { name: 'two', scopes: ['read'] })];
      const r = await v.request('POST', `/accounts/${writer.id}/password-reset`, { token: admin, body: { newPassword: 'reset-password-456' } });
      expect(r.status).to.equal(204);
      const rows: { stream_id: string; type: string; commit_id: string }[] = await v.database.db.knex('events')
        .whereIn('stream_id', [streams.account(writer.id), ...keys.map((k) => streams.apiKey(k.id))])
        .whereIn('type', ['AccountPasswordChanged', 'ApiKeyRevoked'])
        .select('stream_id', 'type', v.database.db.knex.raw('commit_id::text AS commit_id'));
      expect(rows.map((e) => e.type).sort()).to.deep.equal(['AccountPasswordChanged', 'ApiKeyRevoked', 'ApiKeyRevoked']);
      expect(new Set(rows.map((e) => e.commit_id)).size).to.equal(1);
    });

    it('keeps no password or key secret in any event (trap 6)', async () => {
      const rows: { data: string }[] = await v.database.db.knex('events').select('data');
      const all = rows.map((r) => r.data).join('\n');
      expect(all).not.to.contain(ADMIN.password);
      expect(all).not.to.contain('a-long-enough-password');
      expect(all).not.to.match(/vgl_[ks]_[A-Za-z0-9_-]{20,}/); // a 6-character prefix is kept to recognise a key
    });
  });

  describe('teams', () => {
    it('lists each team with its own members and grants, as its members and grants routes show them', async () => {
      const token = await v.signIn();
      const project = await v.request('POST', '/projects', { token, body: { name: 'Team listing' } });
      const reader = await v.account(['reader']);
      const writer = await v.account(['writer']);
      const alpha = await v.request('POST', '/teams', { token, body: { name: 'alpha' } });
      const beta = await v.request('POST', '/teams', { token, body: { name: 'beta' } });
      expect(alpha.status).to.equal(201);
      expect(alpha.body).to.deep.include({ name: 'alpha', members: [], grants: [] });
      await v.request('POST', `/teams/${alpha.body.id}/members`, { token, body: { accountId: writer.id } });
      const added = await v.request('POST', `/teams/${alpha.body.id}/members`, { token, body: { accountId: reader.id } });
      expect(added.status).to.equal(201);
      expect(added.body.members).to.deep.equal([reader.id, writer.id]);
      await v.request('POST', `/teams/${beta.body.id}/members`, { token, body: { accountId: reader.id } });
      const granted = await v.request('POST', `/teams/${alpha.body.id}/grants`, { token, body: { kind: 'project', id: project.body.id } });
      expect(granted.body.grants).to.deep.equal([{ kind: 'project', id: project.body.id }]);

      const listed: { id: number; name: string; members: number[]; grants: unknown[] }[] = (await v.request('GET', '/teams', { token })).body;
      const team = (id: number) => listed.find((t) => t.id === id)!;
      expect(team(alpha.body.id)).to.deep.include({ name: 'alpha', members: [reader.id, writer.id], grants: [{ kind: 'project', id: project.body.id }] });
      expect(team(beta.body.id)).to.deep.include({ name: 'beta', members: [reader.id], grants: [] });
      expect((await v.request('GET', `/teams/${alpha.body.id}/members`, { token })).body).to.deep.equal([reader.id, writer.id]);
      expect((await v.request('GET', `/teams/${alpha.body.id}/grants`, { token })).body).to.deep.equal([{ kind: 'project', id: project.body.id }]);
    });

    it('answers 404 for an unknown team, member or grant target, writing nothing', async () => {
      const token = await v.signIn();
      const team = await v.request('POST', '/teams', { token, body: { name: 'gamma' } });
      const before = await v.eventCount();
      expect((await v.request('GET', '/teams/999999/members', { token })).status).to.equal(404);
      expect((await v.request('POST', '/teams/999999/members', { token, body: { accountId: 1 } })).status).to.equal(404);
      expect((await v.request('POST', `/teams/${team.body.id}/members`, { token, body: { accountId: 999999 } })).status).to.equal(404);
      expect((await v.request('POST', `/teams/${team.body.id}/grants`, { token, body: { kind: 'repository', id: 999999 } })).status).to.equal(404);
      expect(await v.eventCount()).to.equal(before);
    });
  });
});

describe('Bearer failure ceiling', function () {
  it('[S1.5-03] [S1.5-04] [S1.5-05] refuses an address past VIGIL_BEARER_FAILURES_PER_WINDOW refused tokens until the window ends, and audits it', async () => {
    const clock = new ManualClock(new Date('2026-03-01T10:00:00.000Z'));
    const v = await startVigil({ clock, env: { VIGIL_BEARER_FAILURES_PER_WINDOW: '3', VIGIL_BEARER_FAILURE_WINDOW: 'PT5M' } });
    try {
      const token = await v.signIn();
      for (let i = 0; i < 3; i++) expect((await v.request('GET', '/me', { token: `vgl_k_bad${i}` })).status).to.equal(401);
      expect((await v.request('GET', '/me', { token: 'vgl_k_bad' })).status).to.equal(429);
      // past the ceiling even a good credential from that address waits, with Retry-After
      const blocked = await v.request('GET', '/me', { token });
      expect(blocked.status).to.equal(429);
      expect(Number(blocked.headers.get('retry-after'))).to.be.within(1, 300);
      const audit = await v.database.db.knex('audit_log').where({ type: 'BearerFailureCeilingReached' });
      expect(audit).to.have.length(1);
      clock.advance(5 * 60_000 + 1);
      expect((await v.request('GET', '/me', { token })).status).to.equal(200);
    } finally {
      await v.stop();
    }
  });

  it('[S1.7-11] answers 429 with Retry-After when a key spends VIGIL_API_KEY_REQUESTS_PER_MINUTE', async () => {
    const v = await startVigil({ env: { VIGIL_API_KEY_REQUESTS_PER_MINUTE: '5' } });
    try {
      const { key } = await v.key(await v.signIn(), { name: 'busy', scopes: ['read'] });
      for (let i = 0; i < 5; i++) expect((await v.request('GET', '/me', { apiKey: key })).status).to.equal(200);
      const r = await v.request('GET', '/me', { apiKey: key });
      expect(r.status).to.equal(429);
      expect(r.headers.get('retry-after')).to.match(/^\d+$/);
    } finally {
      await v.stop();
    }
  });
});
