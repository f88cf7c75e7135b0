import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { eventLogText, newEncryptionKey } from '../../support/credentials';
import { knownHostsFor, openSshKey, pkcs8EcKey } from '../../support/ssh-keys';
import { Answer, RunningVigil, startVigil } from '../../support/vigil';

/** Stored clone credentials over HTTP (issue #4; README "Credentials"). */
describe('Stored credentials: routes, repositories naming them, the clone guard on entry', function () {
  this.timeout(60_000);
  let v: RunningVigil;
  let admin: string;
  let n = 0;

  before(async () => {
    v = await startVigil({ env: { ENCRYPTION_KEY: newEncryptionKey() } });
    admin = await v.signIn();
  });
  after(async () => { await v.stop(); });

  const token = () => `glpat-${randomBytes(12).toString('hex')}`;
  const saveToken = (body: Record<string, unknown> = {}, as = admin) =>
    v.request('POST', '/credentials/https-tokens', { token: as, body: { name: `token ${++n}`, host: 'git.example', username: 'oauth2', token: token(), ...body } });
  const saveKey = (body: Record<string, unknown> = {}) =>
    v.request('POST', '/credentials/ssh-keys', { token: admin, body: { name: `key ${++n}`, privateKey: openSshKey().privateKey, knownHosts: knownHostsFor('git.example'), ...body } });
  const repository = (body: Record<string, unknown>, as = admin) => v.request('POST', '/repositories', { token: as, body: { url: `https://git.example/cred/repo-${++n}`, scanManualOnly: true, ...body } });
  const created = (r: Answer) => { expect(r.status, r.text).to.equal(201); return r.body.id as number; };
  /** The refusal: status, a problem document with a detail, and nothing written. */
  const refused = async (status: number, call: () => Promise<Answer>, detail?: RegExp) => {
    const before = await v.eventCount();
    const r = await call();
    expect(r.status, r.text).to.equal(status);
    expect(r.headers.get('content-type')).to.match(/application\/problem\+json/);
    if (detail) expect(r.body.detail).to.match(detail);
    expect(await v.eventCount(), 'nothing written').to.equal(before);
    return r;
  };

  describe('POST /credentials/https-tokens, /credentials/ssh-keys; GET /credentials', () => {
    it('stores a token bound to its host; the answer and the list never show the token', async () => {
      const secret = token();
      const r = await saveToken({ name: 'CI', host: 'Git.Example:443', username: 'ci-bot', token: secret });
      expect(r.status, r.text).to.equal(201);
      expect(r.body).to.deep.include({ kind: 'https_token', name: 'CI', host: 'git.example', username: 'ci-bot', publicKey: null, knownHosts: null, repositoryIds: [], createdBy: 1 });
      expect(r.text).not.to.contain(secret);
      const list = await v.request('GET', '/credentials', { token: admin });
      expect(list.status).to.equal(200);
      expect(list.body.map((c: { id: number }) => c.id)).to.include(r.body.id);
      expect(list.text).not.to.contain(secret);
      expect((await v.request('GET', `/credentials/${r.body.id}`, { token: admin })).body).to.deep.equal(r.body);
    });

    it('stores an SSH key (OpenSSH or PEM) with its public fingerprint and pinned host keys; never the private key', async () => {
      const key = openSshKey();
      const pinned = knownHostsFor('git.example');
      const r = await saveKey({ name: 'deploy', privateKey: key.privateKey, knownHosts: `# git.example\n${pinned}` });
      expect(r.status, r.text).to.equal(201);
      expect(r.body).to.deep.include({ kind: 'ssh_key', host: null, username: null, publicKey: { type: 'ssh-ed25519', fingerprint: key.fingerprint }, knownHosts: `${pinned}\n`, pinnedHosts: ['git.example'] });
      expect(r.text).not.to.contain(key.privateKey.split('\n')[1]);
      expect((await saveKey({ privateKey: pkcs8EcKey() })).body.publicKey.type).to.equal('ecdsa-sha2-nistp256');
    });

    it('[S2.6-47] audits every change as VGL-SEC-019 "stored credential"; no event and no read-model row holds the secret (trap 6)', async () => {
      const secret = token();
      const key = openSshKey();
      const t = created(await saveToken({ token: secret }));
      const k = created(await saveKey({ privateKey: key.privateKey }));
      expect((await v.request('PUT', `/credentials/${t}`, { token: admin, body: { token: `${secret}-2` } })).status).to.equal(200);
      expect((await v.request('DELETE', `/credentials/${k}`, { token: admin })).status).to.equal(204);
      const events = await v.database.db.knex('events').whereIn('stream_id', [`credential-${t}`, `credential-${k}`]).orderBy('position');
      expect(events.map((e: { type: string }) => e.type)).to.deep.equal(['CredentialSaved', 'CredentialSaved', 'CredentialReplaced', 'CredentialRemoved']);
      for (const e of events) expect(JSON.parse(e.data).siem).to.deep.include({ signature: 'VGL-SEC-019', subject: 'stored credential' });
      const audit = await v.request('GET', '/audit-log?type=CredentialReplaced', { token: admin });
      expect(audit.body.map((a: { stream: string }) => a.stream)).to.include(`credential-${t}`);
      const log = await eventLogText(v);
      for (const plain of [secret, `${secret}-2`, ...key.privateKey.split('\n').slice(1, -2)]) expect(log, 'event log').not.to.contain(plain);
      const rows = JSON.stringify(await v.database.db.knex('credentials').select('*'));
      expect(rows).not.to.contain(secret);
      expect(Object.keys((await v.database.db.knex('credentials').first()) ?? {})).not.to.include.members(['token', 'sealed', 'private_key', 'secret']);
    });

    it('refuses keys under a passphrase, things that are not keys, missing or bad known_hosts (400, nothing written)', async () => {
      await refused(400, () => saveKey({ privateKey: openSshKey({ encrypted: true }).privateKey }), /passphrase/);
      await refused(400, () => saveKey({ privateKey: pkcs8EcKey({ passphrase: 'pass phrase' }) }), /passphrase/);
      await refused(400, () => saveKey({ privateKey: openSshKey().publicLine }), /not a private key/);
      await refused(400, () => v.request('POST', '/credentials/ssh-keys', { token: admin, body: { name: 'x', privateKey: openSshKey().privateKey } }), /knownHosts/);
      await refused(400, () => saveKey({ knownHosts: '# nothing pinned' }), /knownHosts/);
      await refused(400, () => saveKey({ knownHosts: 'git.example ssh-ed25519 AAAA' }), /knownHosts line 1/);
    });

    it('refuses a host with a scheme or path, a user name with ":", a token with spaces (400, nothing written)', async () => {
      await refused(400, () => saveToken({ host: 'https://git.example' }), /without scheme/);
      await refused(400, () => saveToken({ host: 'git.example/org' }), /without scheme, user or path/);
      await refused(400, () => saveToken({ username: 'a:b' }), /username/);
      await refused(400, () => saveToken({ token: 'two words' }), /token/);
      await refused(400, () => saveToken({ name: '   ' }), /name/);
    });

    it('is an administrator\'s act, signed in: others 403; a key may not write (403), an administrator\'s key with read may list', async () => {
      const writer = await v.account(['writer']);
      await refused(403, () => saveToken({}, writer.token), /administrator/);
      expect((await v.request('GET', '/credentials', { token: writer.token })).status).to.equal(403);
      const { key } = await v.key(admin, { name: 'reader', scopes: ['read'] });
      expect((await v.request('GET', '/credentials', { apiKey: key })).status).to.equal(200);
      await refused(403, () => v.request('POST', '/credentials/https-tokens', { apiKey: key, body: { name: 'x', host: 'git.example', username: 'u', token: 't' } }));
      expect((await v.request('GET', '/credentials')).status).to.equal(401);
    });
  });

  describe('PUT and DELETE /credentials/{id}', () => {
    it('PUT replaces the secret (and user name or pinned host keys); fields of the other kind are 400; unknown 404', async () => {
      const t = created(await saveToken());
      const r = await v.request('PUT', `/credentials/${t}`, { token: admin, body: { token: token(), username: 'x-access-token', name: 'renamed' } });
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.include({ id: t, host: 'git.example', username: 'x-access-token', name: 'renamed' });
      const k = created(await saveKey());
      const key = openSshKey();
      const pinned = knownHostsFor('[git.example]:2222');
      const rk = await v.request('PUT', `/credentials/${k}`, { token: admin, body: { privateKey: key.privateKey, knownHosts: pinned } });
      expect(rk.body).to.deep.include({ publicKey: { type: 'ssh-ed25519', fingerprint: key.fingerprint }, pinnedHosts: ['[git.example]:2222'] });
      await refused(400, () => v.request('PUT', `/credentials/${t}`, { token: admin, body: { privateKey: key.privateKey } }), /HTTPS token/);
      await refused(400, () => v.request('PUT', `/credentials/${k}`, { token: admin, body: { token: 'abc' } }), /SSH key/);
      await refused(400, () => v.request('PUT', `/credentials/${t}`, { token: admin, body: { username: 'only' } }), /token is required/);
      await refused(404, () => v.request('PUT', '/credentials/999999', { token: admin, body: { token: 'abc' } }));
    });

    it('DELETE removes an unused credential (then 404); one repositories name is refused with 409 naming them', async () => {
      const unused = created(await saveToken());
      expect((await v.request('DELETE', `/credentials/${unused}`, { token: admin })).status).to.equal(204);
      expect((await v.request('GET', `/credentials/${unused}`, { token: admin })).status).to.equal(404);
      await refused(404, () => v.request('DELETE', `/credentials/${unused}`, { token: admin }));
      const used = created(await saveToken());
      const repo = created(await repository({ httpsTokenId: used, name: 'payments-api' }));
      const r = await refused(409, () => v.request('DELETE', `/credentials/${used}`, { token: admin }), new RegExp(`repository ${repo} \\(payments-api\\)`));
      expect(r.body.repositoryIds).to.deep.equal([repo]);
      expect((await v.request('GET', `/credentials/${used}`, { token: admin })).body.repositoryIds).to.deep.equal([repo]);
    });
  });

  describe('repositories naming a credential (sshKeyId / httpsTokenId)', () => {
    it('registers with an HTTPS token or an SSH key and reads it back; PATCH changes and null clears it', async () => {
      const t = created(await saveToken());
      const k = created(await saveKey());
      const r = await repository({ httpsTokenId: t });
      expect(r.status, r.text).to.equal(201);
      expect(r.body).to.include({ httpsTokenId: t, sshKeyId: null });
      expect((await v.request('GET', `/repositories/${r.body.id}`, { token: admin })).body).to.include({ httpsTokenId: t, sshKeyId: null });
      const moved = await v.request('PATCH', `/repositories/${r.body.id}`, { token: admin, body: { url: `ssh://git@git.example/cred/moved-${n}`, sshKeyId: k } });
      expect(moved.status, moved.text).to.equal(200);
      expect(moved.body).to.include({ sshKeyId: k, httpsTokenId: null });
      expect((await v.request('GET', `/credentials/${t}`, { token: admin })).body.repositoryIds).to.deep.equal([]);
      expect((await v.request('GET', `/credentials/${k}`, { token: admin })).body.repositoryIds).to.deep.equal([r.body.id]);
      const cleared = await v.request('PATCH', `/repositories/${r.body.id}`, { token: admin, body: { sshKeyId: null } });
      expect(cleared.body).to.include({ sshKeyId: null, httpsTokenId: null });
      expect((await v.request('DELETE', `/credentials/${k}`, { token: admin })).status, 'detached: removable').to.equal(204);
      const scp = await repository({ url: `git@git.example:cred/scp-${n}.git`, sshKeyId: created(await saveKey()) });
      expect(scp.status, scp.text).to.equal(201);
    });

    it('refuses an unknown credential, both fields, the wrong kind, an SSH key on https, a token on ssh or on another host (400, nothing written)', async () => {
      const t = created(await saveToken());
      const k = created(await saveKey());
      await refused(400, () => repository({ httpsTokenId: 999999 }), /No stored credential 999999/);
      await refused(400, () => repository({ httpsTokenId: t, sshKeyId: k }), /at most one/);
      await refused(400, () => repository({ url: `ssh://git@git.example/cred/x-${n}`, sshKeyId: t }), /HTTPS token, not an SSH key/);
      await refused(400, () => repository({ sshKeyId: k }), /ssh URLs only/);
      await refused(400, () => repository({ url: `git@git.example:cred/y-${n}.git`, httpsTokenId: t }), /https only/);
      await refused(400, () => repository({ url: `http://git.example/cred/z-${n}`, httpsTokenId: t }), /https only/);
      await refused(400, () => repository({ url: `https://other.example/cred/z-${n}`, httpsTokenId: t }), /bound to git\.example; the repository URL names other\.example/);
      await refused(400, () => repository({ url: `https://git.example:8443/cred/z-${n}`, httpsTokenId: t }), /git\.example:8443/);
      const repo = created(await repository({ httpsTokenId: t }));
      await refused(400, () => v.request('PATCH', `/repositories/${repo}`, { token: admin, body: { url: 'https://elsewhere.example/cred/r' } }), /bound to git\.example/);
      await refused(400, () => v.request('PATCH', `/containers/1`, { token: admin, body: { sshKeyId: k } }));
    });

    it('naming a credential, or moving the URL of a repository that has one, is an administrator\'s act (403)', async () => {
      const t = created(await saveToken());
      const project = await v.request('POST', '/projects', { token: admin, body: { name: `cred-${++n}` } });
      const team = await v.request('POST', '/teams', { token: admin, body: { name: `cred-${n}` } });
      const writer = await v.account(['writer']);
      await v.request('POST', `/teams/${team.body.id}/members`, { token: admin, body: { accountId: writer.id } });
      await v.request('POST', `/teams/${team.body.id}/grants`, { token: admin, body: { kind: 'project', id: project.body.id } });
      await refused(403, () => repository({ projectId: project.body.id, httpsTokenId: t }, writer.token), /administrator/);
      const repo = created(await repository({ projectId: project.body.id, httpsTokenId: t }));
      await refused(403, () => v.request('PATCH', `/repositories/${repo}`, { token: writer.token, body: { url: 'https://git.example/cred/elsewhere' } }), /administrator/);
      await refused(403, () => v.request('PATCH', `/repositories/${repo}`, { token: writer.token, body: { httpsTokenId: null } }));
      expect((await v.request('PATCH', `/repositories/${repo}`, { token: writer.token, body: { name: 'renamed by writer' } })).status).to.equal(200);
    });

    it('deleting a repository detaches its credential', async () => {
      const t = created(await saveToken());
      const repo = created(await repository({ httpsTokenId: t }));
      expect((await v.request('DELETE', `/repositories/${repo}`, { token: admin })).status).to.equal(204);
      expect((await v.request('GET', `/credentials/${t}`, { token: admin })).body.repositoryIds).to.deep.equal([]);
      expect((await v.request('DELETE', `/credentials/${t}`, { token: admin })).status).to.equal(204);
    });
  });

  describe('the clone guard on entry (VIGIL_GIT_ALLOWED_HOSTS empty)', () => {
    it('[S1.8.3-33] [S1.8.3-32] refuses metadata and link-local hosts and non-network URLs on POST and on a PATCH of the URL (400, nothing written)', async () => {
      await refused(400, () => repository({ url: 'http://169.254.169.254/latest/meta-data' }), /clone guard refuses .*metadata/);
      await refused(400, () => repository({ url: 'https://metadata.google.internal/x/y' }), /metadata host/);
      await refused(400, () => repository({ url: 'https://[fe80::1]/x/y' }), /link-local/);
      await refused(400, () => repository({ url: 'file:///srv/git/repo.git' }), /only https, http, ssh and git/);
      const repo = created(await repository({}));
      await refused(400, () => v.request('PATCH', `/repositories/${repo}`, { token: admin, body: { url: 'http://169.254.169.254/x/y' } }), /clone guard/);
    });

    it('[S1.8.3-32] accepts a host that does not resolve now: the scan-time check decides', async () => {
      created(await repository({ url: 'https://no-such-host.invalid/org/repo' }));
    });
  });
});

describe('The clone guard on entry with VIGIL_GIT_ALLOWED_HOSTS', function () {
  let v: RunningVigil;
  let admin: string;
  before(async () => {
    v = await startVigil({ env: { VIGIL_GIT_ALLOWED_HOSTS: 'git.example,*.corp.example' } });
    admin = await v.signIn();
  });
  after(async () => { await v.stop(); });

  it('[S1.8.3-31] [S1.8.3-33] refuses a host the list does not name (400, nothing written), on POST and PATCH; listed hosts pass', async () => {
    const before = await v.eventCount();
    const r = await v.request('POST', '/repositories', { token: admin, body: { url: 'https://github.com/org/repo' } });
    expect(r.status).to.equal(400);
    expect(r.body.detail).to.match(/github\.com is not in VIGIL_GIT_ALLOWED_HOSTS/);
    expect(await v.eventCount()).to.equal(before);
    const ok = await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/org/repo' } });
    expect(ok.status, ok.text).to.equal(201);
    expect((await v.request('POST', '/repositories', { token: admin, body: { url: 'git@src.corp.example:org/repo.git' } })).status).to.equal(201);
    const moved = await v.request('PATCH', `/repositories/${ok.body.id}`, { token: admin, body: { url: 'https://gitlab.com/org/repo' } });
    expect(moved.status).to.equal(400);
    expect(moved.body.detail).to.match(/gitlab\.com is not in VIGIL_GIT_ALLOWED_HOSTS/);
    expect((await v.request('GET', `/repositories/${ok.body.id}`, { token: admin })).body.url).to.equal('https://git.example/org/repo');
  });
});
