import { expect } from 'chai';
import { Secret, TOTP } from 'otpauth';
import { Browser, cliIdToken, CLI_CLIENT, IDP_CLIENT, RunningIdp, signOn, startIdp } from '../../support/oidc';
import { ADMIN, RunningVigil, startVigil } from '../../support/vigil';
import { loadConfig } from '../../../infrastructure/config/config';

type Json = Record<string, any>;

async function eventsOf(v: RunningVigil, type: string): Promise<Json[]> {
  const rows: { data: string }[] = await v.database.db.knex('events').where({ type }).orderBy('position');
  return rows.map((r) => JSON.parse(r.data));
}

/**
 * Single sign-on against node-oidc-provider on loopback (issue #14): real discovery, real signed
 * ID tokens, the browser flow driven with plain HTTP (cookies and redirects).
 */
describe('Single sign-on (OIDC)', function () {
  this.timeout(90_000);
  let idp: RunningIdp;
  before(async () => { idp = await startIdp(); });
  after(async () => { await idp?.stop(); });

  describe('with the defaults (no second factor required, privileged accounts not linked)', () => {
    let v: RunningVigil;
    before(async () => { v = await startVigil({ env: { ...idp.env, VIGIL_OIDC_EXCHANGE_AUDIENCES: CLI_CLIENT.id } }); });
    after(async () => { await v?.stop(); });

    it('[S1.5-17] [S1.8.3-24] login answers 302 to the provider with PKCE S256, state and nonce, and a browser-binding cookie', async () => {
      const res = await new Browser().get(`${v.url}/api/v1/auth/oidc/login`);
      expect(res.status).to.equal(302);
      const to = new URL(res.headers.get('location')!);
      expect(`${to.origin}${to.pathname}`).to.equal(`${idp.issuer}/auth`);
      expect(to.searchParams.get('client_id')).to.equal(IDP_CLIENT.id);
      expect(to.searchParams.get('response_type')).to.equal('code');
      expect(to.searchParams.get('code_challenge_method')).to.equal('S256');
      for (const p of ['code_challenge', 'state', 'nonce']) expect(to.searchParams.get(p)).to.have.length.greaterThan(20);
      expect(to.searchParams.get('redirect_uri')).to.equal(`${v.url}/api/v1/auth/oidc/callback`);
      expect(res.headers.get('set-cookie')).to.match(/^vigil_sso=[^;]+; Path=\/api\/v1\/auth\/oidc; Max-Age=600; HttpOnly; SameSite=Lax/);
    });

    it('[S1.5-17] a first sign-on creates the account with the default role reader, bound to the subject (VGL-SEC-010); the next one finds it', async () => {
      const first = await signOn(new Browser(), v.url, { login: 'alice' });
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      expect(first.body.created).to.equal(true);
      expect(first.body.account).to.deep.include({ username: 'alice', displayName: 'User alice', roles: ['reader'], active: true });
      const me = await v.request('GET', '/me', { token: first.body.token });
      expect(me.status).to.equal(200);
      expect(me.body).to.deep.include({ username: 'alice', credential: 'session' });

      const bound = await eventsOf(v, 'SsoSubjectBound');
      expect(bound).to.have.length(1);
      expect(bound[0]).to.deep.include({ accountId: first.body.account.id, issuer: idp.issuer, subject: 'alice', via: 'sign_on_created' });
      expect(bound[0].siem).to.deep.include({ signature: 'VGL-SEC-010', severity: 6 });
      expect((await eventsOf(v, 'SignedIn')).at(-1)).to.deep.equal({ accountId: first.body.account.id, method: 'oidc' });

      const again = await signOn(new Browser(), v.url, { login: 'alice' });
      expect(again.status).to.equal(200);
      expect(again.body).to.deep.include({ created: false });
      expect(again.body.account.id).to.equal(first.body.account.id);
      expect(await eventsOf(v, 'SsoSubjectBound')).to.have.length(1);
      // Nothing secret of the flow reaches the log: neither the client secret nor a session token.
      const all: { data: string }[] = await v.database.db.knex('events').select('data');
      for (const e of all) {
        expect(e.data).not.to.include(IDP_CLIENT.secret);
        expect(e.data).not.to.include(first.body.token);
      }
    });

    it('[S1.5-17] a callback is taken once, and only in the browser that began the sign-on (400 sso-state-unknown)', async () => {
      const browser = new Browser();
      const toCallback = await browser.follow(`${v.url}/api/v1/auth/oidc/login`, (u) => u.includes('/interaction/'));
      const interaction = new URL(toCallback.url);
      interaction.searchParams.set('login', 'carol');
      const callback = await browser.follow(interaction.toString(), (u) => u.startsWith(`${v.url}/api/v1/auth/oidc/callback`));

      const before = await v.eventCount();
      const elsewhere = await new Browser().get(callback.url);
      expect(elsewhere.status).to.equal(400);
      expect(((await elsewhere.json()) as Json).type).to.equal('urn:vigil:problem:sso-state-unknown');
      // The state was spent by the foreign attempt: the right browser cannot use it either.
      const replay = await browser.get(callback.url);
      expect(replay.status).to.equal(400);
      expect(await v.eventCount()).to.equal(before);
    });

    it('[S1.5-17] a code the provider does not honour is refused (401 sso-not-verified) and opens no session', async () => {
      const browser = new Browser();
      const toInteraction = await browser.follow(`${v.url}/api/v1/auth/oidc/login`, (u) => u.includes('/interaction/'));
      const interaction = new URL(toInteraction.url);
      interaction.searchParams.set('login', 'dave');
      const callback = new URL((await browser.follow(interaction.toString(), (u) => u.startsWith(`${v.url}/api/v1/auth/oidc/callback`))).url);
      callback.searchParams.set('code', 'forged-code-value');
      const before = await v.eventCount();
      const res = await browser.get(callback.toString());
      expect(res.status).to.equal(401);
      expect(((await res.json()) as Json).type).to.equal('urn:vigil:problem:sso-not-verified');
      expect(await v.eventCount()).to.equal(before);
    });

    it('[S1.5-23] an existing writer of the same name is bound at the first sign-on; the bootstrap administrator is not (VIGIL_OIDC_LINK_PRIVILEGED_ACCOUNTS off)', async () => {
      const wendy = await v.account(['writer'], 'wendy');
      const linked = await signOn(new Browser(), v.url, { login: 'wendy' });
      expect(linked.status, JSON.stringify(linked.body)).to.equal(200);
      expect(linked.body).to.deep.include({ created: false });
      expect(linked.body.account.id).to.equal(wendy.id);
      expect((await eventsOf(v, 'SsoSubjectBound')).at(-1)).to.deep.include({ accountId: wendy.id, via: 'sign_on_linked' });

      const before = await v.eventCount();
      const admin = await signOn(new Browser(), v.url, { login: ADMIN.username });
      expect(admin.status).to.equal(403);
      expect(admin.body.type).to.equal('urn:vigil:problem:sso-link-refused');
      expect(admin.body.detail).to.match(/privileged and VIGIL_OIDC_LINK_PRIVILEGED_ACCOUNTS is off/);
      expect(await v.eventCount()).to.equal(before + 1);
      expect((await eventsOf(v, 'SingleSignOnRefused')).at(-1)).to.deep.include({ reason: 'privileged', subject: ADMIN.username, username: ADMIN.username });
    });

    it('[S1.5-17] a deactivated account bound to the subject is refused (403)', async () => {
      const first = await signOn(new Browser(), v.url, { login: 'erin' });
      const admin = await v.signIn();
      expect((await v.request('PATCH', `/accounts/${first.body.account.id}`, { token: admin, body: { active: false } })).status).to.equal(200);
      const refused = await signOn(new Browser(), v.url, { login: 'erin' });
      expect(refused.status).to.equal(403);
      expect(refused.body.type).to.equal('urn:vigil:problem:sso-account-deactivated');
    });

    it('session exchange: a CLI trades a fresh ID token of its own client for a session, once', async () => {
      const idToken = await cliIdToken(idp, 'frank');
      const first = await v.request('POST', '/auth/oidc/token-exchange', { body: { idToken } });
      expect(first.status, first.text).to.equal(200);
      expect(first.body.account).to.deep.include({ roles: ['reader'] });
      expect((await v.request('GET', '/me', { token: first.body.token })).status).to.equal(200);
      const again = await v.request('POST', '/auth/oidc/token-exchange', { body: { idToken } });
      expect(again.status).to.equal(401);
      expect(again.body.detail).to.match(/exchanged before/);
    });

    it('session exchange: an altered ID token, or no token at all, is refused (401) and writes nothing', async () => {
      const browserToken = await cliIdToken(idp, 'gina');
      const [h, p, s] = browserToken.split('.');
      const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
      const altered = [h, Buffer.from(JSON.stringify({ ...payload, sub: 'someone-else' })).toString('base64url'), s].join('.');
      const before = await v.eventCount();
      const res = await v.request('POST', '/auth/oidc/token-exchange', { body: { idToken: altered } });
      expect(res.status).to.equal(401);
      expect(res.body.type).to.equal('urn:vigil:problem:sso-not-verified');
      const garbage = await v.request('POST', '/auth/oidc/token-exchange', { body: { idToken: 'not.a.token' } });
      expect(garbage.status).to.equal(401);
      expect(await v.eventCount()).to.equal(before);
    });

    describe('begun by the web interface (login with return_to, issue #16)', () => {
      /** The flow up to the callback's answer, in a browser that began it with `return_to`. */
      const toCallback = async (browser: Browser, login: string, returnTo: string) => {
        const toInteraction = await browser.follow(`${v.url}/api/v1/auth/oidc/login?return_to=${encodeURIComponent(returnTo)}`, (u) => u.includes('/interaction/'));
        const interaction = new URL(toInteraction.url);
        interaction.searchParams.set('login', login);
        const callback = await browser.follow(interaction.toString(), (u) => u.startsWith(`${v.url}/api/v1/auth/oidc/callback`));
        return browser.get(callback.url);
      };
      const handoff = (cookie: string | null) => fetch(`${v.url}/api/v1/auth/oidc/handoff`, {
        method: 'POST', headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) }, body: '{}',
      });

      it('the callback redirects back to the interface and hands it the session through a minute-long HttpOnly cookie that only POST /auth/oidc/handoff reads, and clears', async () => {
        const res = await toCallback(new Browser(), 'uma', '/#/issues/3');
        expect(res.status).to.equal(302);
        expect(res.headers.get('location')).to.equal('/?signed_on=1#/issues/3');
        const cookies = res.headers.getSetCookie();
        const session = cookies.find((c) => c.startsWith('vigil_sso_session='))!;
        expect(session).to.match(/^vigil_sso_session=[^;]+; Path=\/api\/v1\/auth\/oidc\/handoff; Max-Age=60; HttpOnly; SameSite=Strict/);
        expect(cookies.filter((c) => /^vigil_sso(_return)?=;/.test(c))).to.have.length(2); // the binding and the return path are spent
        const pair = session.split(';')[0];
        const taken = await handoff(pair);
        expect(taken.status).to.equal(200);
        const body = (await taken.json()) as Json;
        expect(body.token).to.equal(pair.split('=')[1]);
        expect(Date.parse(body.expiresAt)).to.be.greaterThan(Date.now());
        expect(taken.headers.get('set-cookie')).to.match(/^vigil_sso_session=; Path=\/api\/v1\/auth\/oidc\/handoff; Max-Age=0/);
        expect(taken.headers.get('cache-control')).to.equal('no-store');
        expect((await v.request('GET', '/me', { token: body.token })).body).to.deep.include({ username: 'uma', credential: 'session' });
        // The cookie is no way in of its own: once the session ends, the handoff refuses it.
        await v.request('POST', '/auth/sign-out', { token: body.token, body: {} });
        const ended = await handoff(pair);
        expect(ended.status).to.equal(401);
        expect(((await ended.json()) as Json).detail).to.match(/No single sign-on waits/);
      });

      it('POST /auth/oidc/handoff without the cookie, or with one that is not a session, answers 401 and writes nothing', async () => {
        const altered = `vigil_sso_session=${await v.signIn()}x`;
        const before = await v.eventCount();
        for (const cookie of [null, 'vigil_sso_session=', 'vigil_sso_session=not-a-session', altered]) {
          const res = await handoff(cookie);
          expect(res.status, String(cookie)).to.equal(401);
          expect(res.headers.get('content-type')).to.contain('application/problem+json');
        }
        const extra = await fetch(`${v.url}/api/v1/auth/oidc/handoff`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"token":"x"}' });
        expect(extra.status).to.equal(400);
        expect(await v.eventCount()).to.equal(before);
      });

      it('a refused sign-on returns to the interface naming the problem type, with no session', async () => {
        const before = (await eventsOf(v, 'SignedIn')).length;
        const res = await toCallback(new Browser(), ADMIN.username, '/');
        expect(res.status).to.equal(302);
        expect(res.headers.get('location')).to.equal('/?sign_on_refused=sso-link-refused');
        expect(res.headers.getSetCookie().some((c) => c.startsWith('vigil_sso_session=') && !c.startsWith('vigil_sso_session=;'))).to.equal(false);
        expect((await eventsOf(v, 'SignedIn')).length).to.equal(before);
      });

      it('return_to names the interface\'s page only (/ or /#/<route>): anything else is 400 and begins nothing', async () => {
        for (const bad of ['https://evil.example/', '//evil.example/', '/api/v1/me', '/#x', 'x', '/#/a b', '/\\evil.example']) {
          const res = await new Browser().get(`${v.url}/api/v1/auth/oidc/login?return_to=${encodeURIComponent(bad)}`);
          expect(res.status, bad).to.equal(400);
          expect(res.headers.get('location'), bad).to.equal(null);
          expect(res.headers.get('set-cookie'), bad).to.equal(null);
        }
        const tooLong = await new Browser().get(`${v.url}/api/v1/auth/oidc/login?return_to=${encodeURIComponent(`/#/${'a'.repeat(2000)}`)}`);
        expect(tooLong.status).to.equal(400);
      });

      it('a later sign-on without return_to, in the same browser, answers JSON as before', async () => {
        const browser = new Browser();
        const toInteraction = await browser.follow(`${v.url}/api/v1/auth/oidc/login?return_to=%2F`, (u) => u.includes('/interaction/'));
        expect(toInteraction.url).to.include('/interaction/');
        const plain = await signOn(browser, v.url, { login: 'uma' });
        expect(plain.status).to.equal(200);
        expect(plain.body.account.username).to.equal('uma');
      });
    });
  });

  it('[S1.5-17] a provider that cannot be reached: login answers 502 sso-provider-unreachable, and the start did not wait for it', async () => {
    const v = await startVigil({ env: { VIGIL_OIDC_ISSUER: 'http://127.0.0.1:9', VIGIL_OIDC_CLIENT_ID: 'vigil', VIGIL_OIDC_CLIENT_SECRET: 'secret' } });
    try {
      const res = await new Browser().get(`${v.url}/api/v1/auth/oidc/login`);
      expect(res.status).to.equal(502);
      expect(((await res.json()) as Json).type).to.equal('urn:vigil:problem:sso-provider-unreachable');
    } finally {
      await v.stop();
    }
  });

  it('[S1.8.3-24] an issuer without the client id or secret stops the start', () => {
    expect(() => loadConfig({ VIGIL_OIDC_ISSUER: 'https://idp.example' })).to.throw(/VIGIL_OIDC_CLIENT_ID/);
    expect(() => loadConfig({ VIGIL_OIDC_ISSUER: 'https://idp.example', VIGIL_OIDC_CLIENT_ID: 'vigil' })).to.throw(/VIGIL_OIDC_CLIENT_SECRET/);
    expect(() => loadConfig({ VIGIL_OIDC_ISSUER: 'https://idp.example', VIGIL_OIDC_CLIENT_ID: 'vigil', VIGIL_OIDC_CLIENT_SECRET: 'a', VIGIL_OIDC_CLIENT_SECRET_FILE: '/x' })).to.throw(/both set/);
    expect(loadConfig({ VIGIL_OIDC_ISSUER: 'https://idp.example', VIGIL_OIDC_CLIENT_ID: 'vigil', VIGIL_OIDC_CLIENT_SECRET: 'a' }).oidc)
      .to.deep.include({ defaultRole: 'reader', requireMfa: false, mfaAmr: ['mfa', 'otp', 'hwk', 'fido'], mfaAcr: [], linkPrivilegedAccounts: false, exchangeAudiences: [] });
  });

  describe('with VIGIL_OIDC_REQUIRE_MFA', () => {
    let v: RunningVigil;
    before(async () => { v = await startVigil({ env: { ...idp.env, VIGIL_OIDC_REQUIRE_MFA: 'true', VIGIL_OIDC_MFA_ACR: 'urn:example:loa:high', VIGIL_OIDC_EXCHANGE_AUDIENCES: CLI_CLIENT.id } }); });
    after(async () => { await v?.stop(); });

    it('[S1.8.3-27] a token stating no second factor is refused with a clear answer (403), audited; no account is created', async () => {
      const before = await v.eventCount();
      const refused = await signOn(new Browser(), v.url, { login: 'henry', amr: ['pwd'] });
      expect(refused.status).to.equal(403);
      expect(refused.body.type).to.equal('urn:vigil:problem:sso-second-factor-required');
      expect(refused.body.detail).to.match(/states no second factor.*VIGIL_OIDC_REQUIRE_MFA/);
      expect(await v.eventCount()).to.equal(before + 1);
      expect((await eventsOf(v, 'SingleSignOnRefused'))[0]).to.deep.include({ reason: 'second_factor_missing', subject: 'henry' });
      const exchanged = await v.request('POST', '/auth/oidc/token-exchange', { body: { idToken: await cliIdToken(idp, 'henry', ['pwd']) } });
      expect(exchanged.status).to.equal(403);
    });

    it('[S1.8.3-28] amr values of VIGIL_OIDC_MFA_AMR (default mfa,otp,hwk,fido) count as a second factor', async () => {
      const ok = await signOn(new Browser(), v.url, { login: 'henry', amr: ['pwd', 'otp'] });
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
      const hwk = await signOn(new Browser(), v.url, { login: 'henry', amr: ['hwk'] });
      expect(hwk.status).to.equal(200);
    });

    it('[S1.8.3-29] an acr among VIGIL_OIDC_MFA_ACR counts as a second factor', async () => {
      const ok = await signOn(new Browser(), v.url, { login: 'irene', amr: ['pwd'], acr: 'urn:example:loa:high' });
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
      const low = await signOn(new Browser(), v.url, { login: 'irene', amr: ['pwd'], acr: 'urn:example:loa:low' });
      expect(low.status).to.equal(403);
    });
  });

  describe('with VIGIL_OIDC_LINK_PRIVILEGED_ACCOUNTS and VIGIL_PASSWORD_LOGIN=false', () => {
    let v: RunningVigil;
    before(async () => { v = await startVigil({ env: { ...idp.env, VIGIL_OIDC_LINK_PRIVILEGED_ACCOUNTS: 'true', VIGIL_PASSWORD_LOGIN: 'false', VIGIL_OIDC_DEFAULT_ROLE: 'writer', ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64') } }); });
    after(async () => { await v?.stop(); });

    it('[S1.5-18] password sign-in is refused for every account but the bootstrap one, which still recovers', async () => {
      const admin = await v.signIn();
      const created = await v.request('POST', '/accounts', { token: admin, body: { username: 'kim', password: 'a-long-enough-password', roles: ['writer'] } });
      expect(created.status).to.equal(201);
      const refused = await v.request('POST', '/auth/sign-in', { body: { username: 'kim', password: 'a-long-enough-password' } });
      expect(refused.status).to.equal(403);
      expect(refused.body.detail).to.match(/single sign-on/);
    });

    it('[S1.5-23] [S1.8.3-26] with the link setting on, the privileged bootstrap account is bound to its subject; VIGIL_OIDC_DEFAULT_ROLE names the role of new accounts', async () => {
      const linked = await signOn(new Browser(), v.url, { login: ADMIN.username });
      expect(linked.status, JSON.stringify(linked.body)).to.equal(200);
      expect(linked.body.account).to.deep.include({ username: ADMIN.username, roles: ['administrator'] });
      const fresh = await signOn(new Browser(), v.url, { login: 'lena' });
      expect(fresh.body.account.roles).to.deep.equal(['writer']);
    });

    it('[S1.5-24] an account with a local second factor is never bound, even with the link setting on', async () => {
      const admin = await v.signIn();
      expect((await v.request('POST', '/accounts', { token: admin, body: { username: 'mona', password: 'a-long-enough-password', roles: ['writer'] } })).status).to.equal(201);
      // mona enrols TOTP while password sign-in still lets the administrator act for her: through her own session.
      const session = await v.services.identity.openSession({ actor: null, now: new Date() }, (await v.services.accountQueries.byUsername('mona'))!.account);
      const begun = await v.request('POST', '/me/second-factor', { token: session.token });
      expect(begun.status, begun.text).to.equal(201);
      const code = new TOTP({ secret: Secret.fromBase32(begun.body.secret) }).generate();
      expect((await v.request('POST', '/me/second-factor/confirmation', { token: session.token, body: { code } })).status).to.equal(200);

      const before = await v.eventCount();
      const refused = await signOn(new Browser(), v.url, { login: 'mona' });
      expect(refused.status).to.equal(403);
      expect(refused.body.type).to.equal('urn:vigil:problem:sso-link-refused');
      expect(refused.body.detail).to.match(/local second factor/);
      expect(await v.eventCount()).to.equal(before + 1);
      expect((await eventsOf(v, 'SingleSignOnRefused')).at(-1)).to.deep.include({ reason: 'local_second_factor', username: 'mona' });
    });
  });
});
