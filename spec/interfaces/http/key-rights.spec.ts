import { expect } from 'chai';
import { RunningVigil, startVigil } from '../../support/vigil';

const sarif = JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name: 'Tool', version: '1.0' } }, results: [
  { ruleId: 'R1', level: 'error', message: { text: 'R1' }, locations: [{ physicalLocation: { artifactLocation: { uri: 'src/a.ts' }, region: { startLine: 1 } } }] },
] }] });

/**
 * A key's rights against its account's current roles on every use (issue #17): the scopes an
 * account may put on a key (README "API conventions") are checked again at each request, so a key
 * never keeps what its account lost.
 */
describe('Integration keys follow their account\'s current roles', function () {
  let v: RunningVigil;
  let admin: string;
  let n = 0;

  before(async () => {
    v = await startVigil();
    admin = await v.signIn();
  });
  after(async () => { await v.stop(); });

  const demote = async (accountId: number, roles: string[]) => {
    const r = await v.request('PATCH', `/accounts/${accountId}`, { token: admin, body: { roles } });
    expect(r.status, r.text).to.equal(200);
  };
  const repository = async (projectId?: number) => {
    const r = await v.request('POST', '/repositories', { token: admin, body: { url: `https://git.example/key-rights/r${++n}`, scanManualOnly: true, ...(projectId ? { projectId } : {}) } });
    expect(r.status, r.text).to.equal(201);
    return r.body.id as number;
  };

  /** A writer who sees a repository through a team, with a sarif_import key named by a declared source. */
  async function writerWithImportKey() {
    const project = await v.request('POST', '/projects', { token: admin, body: { name: `key-rights ${++n}` } });
    const team = await v.request('POST', '/teams', { token: admin, body: { name: `key-rights-${n}` } });
    const writer = await v.account(['writer']);
    await v.request('POST', `/teams/${team.body.id}/members`, { token: admin, body: { accountId: writer.id } });
    await v.request('POST', `/teams/${team.body.id}/grants`, { token: admin, body: { kind: 'project', id: project.body.id } });
    const repositoryId = await repository(project.body.id);
    const key = await v.key(writer.token, { name: 'pipeline', scopes: ['sarif_import', 'read'] });
    const governor = await v.account(['platform_governor']);
    const source = await v.request('POST', '/sarif-sources', { token: governor.token, body: {
      slug: `key-rights-${n}`, name: 'CI', api_key_id: key.id, repository_id: repositoryId, kinds: ['sarif'], tools: ['Tool'],
    } });
    expect(source.status, source.text).to.equal(201);
    return { writer, key: key.key, repositoryId };
  }

  const upload = (repositoryId: number, key: string) =>
    v.request('POST', `/repositories/${repositoryId}/sarif-imports`, { apiKey: key, raw: sarif, contentType: 'application/sarif+json' });

  it('a writer\'s sarif_import key imports; once the account is a reader the import answers 403, writes nothing but its audited refusal', async () => {
    const { writer, key, repositoryId } = await writerWithImportKey();
    const first = await upload(repositoryId, key);
    expect(first.status, first.text).to.equal(201);
    await demote(writer.id, ['reader']);

    const before = await v.eventCount();
    const refusalsBefore = await v.database.db.knex('events').where({ type: 'SarifImportRefused' }).count({ n: '*' }).first();
    const r = await upload(repositoryId, key);
    expect(r.status).to.equal(403);
    expect(r.headers.get('content-type')).to.match(/application\/problem\+json/);
    expect(r.body.detail).to.equal("This key lacks scope sarif_import: its account's roles (reader) no longer allow it.");
    // Nothing imported: the only event is the refusal, audited as every import refusal (VGL-SEC-023).
    expect(await v.eventCount()).to.equal(before + 1);
    const refusals = await v.database.db.knex('events').where({ type: 'SarifImportRefused' }).orderBy('position', 'desc');
    expect(refusals.length).to.equal(Number(refusalsBefore!.n) + 1);
    const data = JSON.parse(refusals[0].data);
    expect(data).to.include({ accountId: writer.id, audit: 'SARIF_IMPORT_REFUSED' });
    expect(data.siem).to.deep.equal({ signature: 'VGL-SEC-023' });
    const history = await v.request('GET', `/repositories/${repositoryId}/sarif-imports`, { token: admin });
    expect(history.body).to.have.length(1);

    // The key itself is unchanged: /me shows what it may do now; promoted again, it imports again.
    expect((await v.request('GET', '/me', { apiKey: key })).body.scopes).to.deep.equal(['read']);
    await demote(writer.id, ['writer']);
    expect((await upload(repositoryId, key)).status).to.equal(201);
  });

  it('[S1.5-11] an administrator\'s scan key answers 403 on POST scan once the account is a writer, and writes nothing', async () => {
    const person = await v.account(['administrator']);
    const repositoryId = await repository();
    const { key } = await v.key(person.token, { name: 'trigger', scopes: ['scan', 'agent'] });
    expect((await v.request('POST', `/repositories/${repositoryId}/scan`, { apiKey: key, body: {} })).status).to.equal(200);
    await demote(person.id, ['writer']);
    const other = await repository();
    const before = await v.eventCount();
    const r = await v.request('POST', `/repositories/${other}/scan`, { apiKey: key, body: {} });
    expect(r.status).to.equal(403);
    expect(r.body.detail).to.equal("Triggering a scan is an administrator's act.");
    expect(await v.eventCount()).to.equal(before);
    // agent is an administrator's scope: withdrawn; scan stays (a writer may still ask the gate).
    const me = await v.services.identity.authenticate(key);
    expect(me?.scopes).to.deep.equal(['scan']);
    expect(me?.withdrawnScopes).to.deep.equal(['agent']);
  });

  for (const [rule, role] of [['S1.5-09', 'auditor'], ['S1.5-10', 'platform_governor']] as const) {
    it(`[${rule}] a writer's gate key answers 403 once the account is made ${role}, and writes no verdict`, async () => {
      const person = await v.account(['writer']);
      const repositoryId = await repository();
      const gateKey = (await v.key(person.token, { name: 'gate', scopes: ['scan'] })).key;
      await demote(person.id, [role]);
      const before = await v.eventCount();
      const r = await v.request('POST', '/gate', { apiKey: gateKey, body: { repositoryId } });
      expect(r.status).to.equal(403);
      expect(r.body.detail).to.match(/auditor's or platform governor's credential may not call it/);
      expect(await v.eventCount()).to.equal(before);
    });
  }

  it('a key still answers for what its account may hold: a writer made CISO keeps its read key', async () => {
    const person = await v.account(['writer']);
    const { key } = await v.key(person.token, { name: 'reads', scopes: ['read'] });
    await demote(person.id, ['ciso']);
    const me = await v.request('GET', '/me', { apiKey: key });
    expect(me.status).to.equal(200);
    expect(me.body.scopes).to.deep.equal(['read']);
  });
});
