import { expect } from 'chai';
import { RunningVigil, startVigil } from '../../support/vigil';

type Json = Record<string, any>;
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

async function eventsOf(v: RunningVigil, type: string): Promise<Json[]> {
  const rows: { data: string }[] = await v.database.db.knex('events').where({ type }).orderBy('position');
  return rows.map((r) => JSON.parse(r.data));
}

/** SCIM 2.0 provisioning at /scim/v2 (issue #14; spec 1 §5; RFC 7644). */
describe('SCIM 2.0 provisioning', function () {
  this.timeout(90_000);
  let v: RunningVigil;
  let admin: string;
  let token: string;
  before(async () => {
    v = await startVigil();
    admin = await v.signIn();
    token = (await v.request('POST', '/admin/scim-token', { token: admin })).body.token;
  });
  after(async () => { await v?.stop(); });

  const scim = async (method: string, path: string, body?: unknown, bearer: string | null = token) => {
    const res = await fetch(`${v.url}/scim/v2${path}`, {
      method, body: body === undefined ? undefined : JSON.stringify(body),
      headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }) },
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
  };
  const create = (userName: string, extra: Json = {}) => scim('POST', '/Users', { schemas: [USER], userName, ...extra });

  describe('the SCIM token', () => {
    it('[S1.5-01] an administrator issues it once as {token}; only its hash is kept; another account may not', async () => {
      expect(token).to.match(/^vgl_scim_/);
      const all: { data: string }[] = await v.database.db.knex('events').select('data');
      for (const e of all) expect(e.data).not.to.include(token);
      const writer = await v.account(['writer']);
      expect((await v.request('POST', '/admin/scim-token', { token: writer.token })).status).to.equal(403);
    });

    it('[S1.5-01] a new token replaces the earlier one; DELETE revokes it; neither a session nor a key opens /scim/v2, nor the SCIM token /api/v1', async () => {
      const second = (await v.request('POST', '/admin/scim-token', { token: admin })).body.token;
      expect((await scim('GET', '/Users', undefined, token)).status).to.equal(401);
      expect((await scim('GET', '/Users', undefined, second)).status).to.equal(200);
      expect((await scim('GET', '/Users', undefined, admin)).status).to.equal(401);
      expect((await v.request('GET', '/me', { token: second })).status).to.equal(401);
      expect((await v.request('DELETE', '/admin/scim-token', { token: admin })).status).to.equal(204);
      const refused = await scim('GET', '/Users', undefined, second);
      expect(refused.status).to.equal(401);
      expect(refused.headers.get('content-type')).to.match(/application\/scim\+json/);
      expect(refused.body.schemas).to.deep.equal(['urn:ietf:params:scim:api:messages:2.0:Error']);
      token = (await v.request('POST', '/admin/scim-token', { token: admin })).body.token;
    });
  });

  describe('Users', () => {
    let nora: Json;

    it('create: 201 with the User resource and Location; an account with the default role reader and no password, audited VGL-SEC-010', async () => {
      const created = await create('nora', { externalId: 'idp-0001', name: { formatted: 'Nora North' }, emails: [{ value: 'nora@example.test' }] });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      nora = created.body;
      expect(nora).to.deep.include({ userName: 'nora', externalId: 'idp-0001', displayName: 'Nora North', active: true });
      expect(created.headers.get('location')).to.match(new RegExp(`/scim/v2/Users/${nora.id}$`));
      const account = (await v.request('GET', '/accounts', { token: admin })).body.find((a: Json) => a.id === Number(nora.id));
      expect(account).to.deep.include({ username: 'nora', roles: ['reader'], active: true });
      const [event] = await eventsOf(v, 'ScimUserProvisioned');
      expect(event).to.deep.include({ accountId: Number(nora.id), via: 'created', externalId: 'idp-0001' });
      expect(event.siem).to.deep.include({ signature: 'VGL-SEC-010' });
      expect(await v.database.db.knex('audit_log').where({ type: 'ScimUserProvisioned' })).to.have.length(1);
      expect((await create('nora')).body.scimType).to.equal('uniqueness');
    });

    it('[S1.5-21] GET /Users evaluates userName eq (any case of the attribute and operator) and externalId eq; lists only provisioned accounts', async () => {
      await create('olga', { externalId: 'idp-0002' });
      const byName = await scim('GET', `/Users?filter=${encodeURIComponent('USERNAME EQ "Nora"')}`);
      expect(byName.status).to.equal(200);
      expect(byName.body).to.deep.include({ totalResults: 1, startIndex: 1, itemsPerPage: 1 });
      expect(byName.body.Resources[0].id).to.equal(nora.id);
      const byExternal = await scim('GET', `/Users?filter=${encodeURIComponent('externalId eq "idp-0002"')}`);
      expect(byExternal.body.Resources.map((u: Json) => u.userName)).to.deep.equal(['olga']);
      const none = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "admin"')}`);
      expect(none.body.totalResults).to.equal(0);
      const all = await scim('GET', '/Users?count=1');
      expect(all.body).to.deep.include({ totalResults: 2, itemsPerPage: 1 });
    });

    for (const filter of ['displayName eq "Nora North"', 'userName co "no"', 'userName eq "nora" and externalId eq "idp-0001"', 'userName pr', 'userName eq nora', '']) {
      it(`[S1.5-22] filter ${JSON.stringify(filter)}: 400 scimType invalidFilter, nothing written`, async () => {
        const before = await v.eventCount();
        const r = await scim('GET', `/Users?filter=${encodeURIComponent(filter)}`);
        expect(r.status).to.equal(400);
        expect(r.body).to.deep.include({ status: '400', scimType: 'invalidFilter' });
        expect(await v.eventCount()).to.equal(before);
      });
    }

    it('patch: replace displayName and externalId; userName is not writable (mutability); an unknown path is invalidPath', async () => {
      const r = await scim('PATCH', `/Users/${nora.id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'displayName', value: 'Nora N.' }, { op: 'Replace', value: { externalId: 'idp-0001b' } }] });
      expect(r.status, JSON.stringify(r.body)).to.equal(200);
      expect(r.body).to.deep.include({ displayName: 'Nora N.', externalId: 'idp-0001b' });
      expect((await eventsOf(v, 'ScimUserChanged')).at(-1)!.siem).to.deep.include({ signature: 'VGL-SEC-010' });
      const before = await v.eventCount();
      expect((await scim('PATCH', `/Users/${nora.id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'userName', value: 'x' }] })).body.scimType).to.equal('mutability');
      expect((await scim('PATCH', `/Users/${nora.id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'roles', value: 'administrator' }] })).body.scimType).to.equal('invalidPath');
      expect(await v.eventCount()).to.equal(before);
    });

    it('deprovisioning (patch active false): the account is deactivated, its sessions end and its keys are revoked (VGL-SEC-010)', async () => {
      const password = 'a-long-enough-password';
      expect((await v.request('POST', `/accounts/${nora.id}/password-reset`, { token: admin, body: { newPassword: password } })).status).to.equal(204);
      const session = await v.signIn('nora', password);
      const key = await v.key(session, { name: 'ci', scopes: ['read'] });
      const r = await scim('PATCH', `/Users/${nora.id}`, { schemas: [PATCH], Operations: [{ op: 'replace', path: 'active', value: false }] });
      expect(r.status).to.equal(200);
      expect(r.body.active).to.equal(false);
      expect((await v.request('GET', '/me', { token: session })).status).to.equal(401);
      expect((await v.request('GET', '/me', { apiKey: key.key })).status).to.equal(401);
      const row = await v.database.db.knex('api_keys').where({ id: key.id }).first();
      expect(row.revoked_reason).to.equal('deprovisioned');
      const [deprovisioned] = await eventsOf(v, 'ScimUserDeprovisioned');
      expect(deprovisioned).to.deep.include({ accountId: Number(nora.id) });
      expect(deprovisioned.siem).to.deep.include({ signature: 'VGL-SEC-010' });
      // Reactivating it does not bring the session back.
      expect((await scim('PATCH', `/Users/${nora.id}`, { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: true } }] })).body.active).to.equal(true);
      expect((await v.request('GET', '/me', { token: session })).status).to.equal(401);
    });

    it('replace (PUT) keeps userName; a new userName is mutability; DELETE deactivates (204)', async () => {
      const olga = (await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "olga"')}`)).body.Resources[0];
      const put = await scim('PUT', `/Users/${olga.id}`, { schemas: [USER], userName: 'olga', displayName: 'Olga O.', active: true });
      expect(put.status).to.equal(200);
      expect(put.body).to.deep.include({ displayName: 'Olga O.', active: true });
      expect(put.body.externalId).to.equal(undefined);
      expect((await scim('PUT', `/Users/${olga.id}`, { schemas: [USER], userName: 'olga2' })).body.scimType).to.equal('mutability');
      expect((await scim('DELETE', `/Users/${olga.id}`)).status).to.equal(204);
      expect((await scim('GET', `/Users/${olga.id}`)).body.active).to.equal(false);
    });

    it('[S1.5-23] an existing local writer is bound; the bootstrap administrator is not while VIGIL_OIDC_LINK_PRIVILEGED_ACCOUNTS is off (409 uniqueness)', async () => {
      const walt = await v.account(['writer'], 'walt');
      const bound = await create('walt', { externalId: 'idp-walt' });
      expect(bound.status).to.equal(201);
      expect(bound.body.id).to.equal(String(walt.id));
      expect((await eventsOf(v, 'ScimUserProvisioned')).at(-1)).to.deep.include({ accountId: walt.id, via: 'bound' });
      const before = await v.eventCount();
      const refused = await create('admin');
      expect(refused.status).to.equal(409);
      expect(refused.body.scimType).to.equal('uniqueness');
      expect(refused.body.detail).to.match(/privileged/);
      expect(await v.eventCount()).to.equal(before);
      expect((await scim('GET', '/Users/1')).status).to.equal(404);
    });

    it('unknown resources and ids answer 404 in SCIM form; another method 405', async () => {
      expect((await scim('GET', '/Things')).status).to.equal(404);
      expect((await scim('GET', '/Users/abc')).status).to.equal(404);
      expect((await scim('GET', '/users')).status).to.equal(404);
      expect((await scim('DELETE', '/Users')).status).to.equal(405);
    });
  });

  describe('Groups (teams)', () => {
    it('create a group with members: a team; add and remove members by PatchOp, signalled VGL-SEC-011', async () => {
      const [a, b] = await Promise.all(['pia', 'quin'].map(async (n) => (await create(n)).body.id as string));
      const created = await scim('POST', '/Groups', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'AppSec', members: [{ value: a }] });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const id = created.body.id;
      const team = (await v.request('GET', '/teams', { token: admin })).body.find((t: Json) => String(t.id) === id);
      expect(team).to.deep.include({ name: 'AppSec', members: [Number(a)] });
      const patched = await scim('PATCH', `/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'add', path: 'members', value: [{ value: b }] }, { op: 'remove', path: `members[value eq "${a}"]` }] });
      expect(patched.status, JSON.stringify(patched.body)).to.equal(200);
      expect(patched.body.members.map((m: Json) => m.value)).to.deep.equal([b]);
      const changes = await eventsOf(v, 'ScimGroupChanged');
      expect(changes.at(-1)).to.deep.include({ teamId: Number(id), added: [Number(b)], removed: [Number(a)] });
      expect(changes.at(-1)!.siem).to.deep.include({ signature: 'VGL-SEC-011' });
      const found = await scim('GET', `/Groups?filter=${encodeURIComponent('displayName eq "AppSec"')}`);
      expect(found.body.totalResults).to.equal(1);
      expect((await scim('GET', `/Groups?filter=${encodeURIComponent('members eq "1"')}`)).body.scimType).to.equal('invalidFilter');
      // A local account that SCIM does not provision cannot be made a member.
      expect((await scim('PATCH', `/Groups/${id}`, { schemas: [PATCH], Operations: [{ op: 'add', path: 'members', value: [{ value: '1' }] }] })).body.scimType).to.equal('invalidValue');
    });
  });
});
