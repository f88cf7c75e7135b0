import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { CloneCredential, ScanFailure } from '../../../application/ports/scanning';
import { FakeExecutor, FakeNormaliser } from '../../application/scans/fakes';
import { eventLogText, newEncryptionKey } from '../../support/credentials';
import { createTestDatabase, TestDatabase } from '../../support/databases';
import { knownHostsFor, openSshKey } from '../../support/ssh-keys';
import { RunningVigil, startVigil } from '../../support/vigil';

/**
 * The built-in worker and stored credentials (issue #4, spec 1 §3.1): one database, Vigil started
 * again with different keys (ENCRYPTION_KEY, VIGIL_PREVIOUS_ENCRYPTION_KEYS, none), a recording
 * executor at the scanning port standing in for git and the scanners.
 */
describe('Scans of repositories that name a stored credential', function () {
  this.timeout(120_000);
  const first = newEncryptionKey();
  const second = newEncryptionKey();
  const secret = `vigil-test-${randomBytes(12).toString('hex')}`; // no well-known token shape: the worker itself must scrub it
  const executor = new FakeExecutor();
  let database: TestDatabase;
  let v: RunningVigil | null = null;
  let admin: string;
  let tokenId: number;
  let repo: number;
  let waiting: number;

  const start = async (env: Record<string, string>) => {
    await v?.stop({ keepDatabase: true });
    v = await startVigil({ database, env, overrides: { scanExecutor: executor, normaliser: new FakeNormaliser() } });
    admin = await v.signIn();
    executor.reset();
    return v;
  };
  const vigil = () => v!;
  const requestScan = async (id: number) => {
    const r = await vigil().request('POST', `/repositories/${id}/scan`, { token: admin, body: {} });
    expect(r.status, r.text).to.equal(200);
    return r.body as { id: number; requiresCredential: boolean };
  };
  const scanOf = async (id: number) => (await vigil().request('GET', `/scans/${id}`, { token: admin })).body.scan;

  before(async () => { database = await createTestDatabase('pglite', { migrate: false }); });
  after(async () => {
    await v?.stop({ keepDatabase: true });
    await database.drop();
  });

  it('[S1.3.1-20] a worker able to hold it claims the scan and hands the unsealed token to the executor in job.target.credential, and nowhere else', async () => {
    await start({ ENCRYPTION_KEY: first });
    const saved = await vigil().request('POST', '/credentials/https-tokens', { token: admin, body: { name: 'ci', host: 'git.example', username: 'oauth2', token: secret } });
    tokenId = saved.body.id;
    repo = (await vigil().request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/private/app', scanManualOnly: true, httpsTokenId: tokenId } })).body.id;
    const scan = await requestScan(repo);
    expect(scan.requiresCredential).to.equal(true);
    expect(await vigil().services.scanWorker.runOnce()).to.deep.equal(['completed']);
    expect(executor.jobs).to.have.length(1);
    expect(executor.jobs[0].target).to.deep.include({ kind: 'repository', id: repo, url: 'https://git.example/private/app' });
    expect(executor.jobs[0].target.credential).to.deep.equal({ kind: 'https_token', id: tokenId, host: 'git.example', username: 'oauth2', token: secret } satisfies CloneCredential);
    expect(await eventLogText(vigil()), 'no event holds the token').not.to.contain(secret);
    expect(JSON.stringify(await vigil().database.db.knex('scans').select('*'))).not.to.contain(secret);
  });

  it('hands an SSH key with its pinned host keys', async () => {
    const key = openSshKey();
    const pinned = knownHostsFor('git.example');
    const saved = await vigil().request('POST', '/credentials/ssh-keys', { token: admin, body: { name: 'deploy', privateKey: key.privateKey, knownHosts: pinned } });
    const sshRepo = (await vigil().request('POST', '/repositories', { token: admin, body: { url: 'git@git.example:private/lib.git', scanManualOnly: true, sshKeyId: saved.body.id } })).body.id;
    await requestScan(sshRepo);
    expect(await vigil().services.scanWorker.runOnce()).to.deep.equal(['completed']);
    expect(executor.jobs.at(-1)!.target.credential).to.deep.equal({ kind: 'ssh_key', id: saved.body.id, privateKey: key.privateKey, knownHosts: `${pinned}\n` });
    expect(await eventLogText(vigil())).not.to.contain(key.privateKey.split('\n')[2]);
  });

  it('[S1.3.1-15] a failure reason that quotes the token is recorded without it', async () => {
    executor.throws(new ScanFailure('permanent', `authentication refused for https://oauth2:${secret}@git.example/private/app (Authorization: ${secret})`));
    const scan = await requestScan(repo);
    expect(await vigil().services.scanWorker.runOnce()).to.deep.equal(['failed']);
    const failed = await scanOf(scan.id);
    expect(failed.error).to.match(/authentication refused/);
    expect(failed.error).not.to.contain(secret);
    expect(await eventLogText(vigil())).not.to.contain(secret);
  });

  it('[S1.3.1-20] [S1.8.3-09] without ENCRYPTION_KEY the scan waits in pending with no attempt spent, and no secret can be saved (409, nothing written)', async () => {
    await start({});
    const scan = await requestScan(repo);
    waiting = scan.id;
    expect(scan.requiresCredential).to.equal(true);
    // A repository that names its credential only after its scan was requested waits all the same.
    const later = (await vigil().request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/private/later', scanManualOnly: true } })).body.id;
    const laterScan = await requestScan(later);
    expect(laterScan.requiresCredential).to.equal(false);
    expect((await vigil().request('PATCH', `/repositories/${later}`, { token: admin, body: { httpsTokenId: tokenId } })).status, 'naming needs no key').to.equal(200);
    expect(await vigil().services.scanWorker.runOnce()).to.deep.equal([]);
    expect(await scanOf(waiting)).to.include({ status: 'pending', attempts: 0, requiresCredential: true });
    expect(await scanOf(laterScan.id)).to.include({ status: 'pending', attempts: 0 });
    expect(executor.jobs).to.have.length(0);
    const before = await vigil().eventCount();
    const refused = await vigil().request('POST', '/credentials/https-tokens', { token: admin, body: { name: 'x', host: 'git.example', username: 'u', token: 'abc' } });
    expect(refused.status).to.equal(409);
    expect(refused.headers.get('content-type')).to.match(/application\/problem\+json/);
    expect(refused.body.detail).to.match(/No ENCRYPTION_KEY is configured/);
    expect((await vigil().request('PUT', `/credentials/${tokenId}`, { token: admin, body: { token: 'abc' } })).status).to.equal(409);
    expect(await vigil().eventCount()).to.equal(before);
  });

  it('[S1.8.3-18] after a rotation (old key in VIGIL_PREVIOUS_ENCRYPTION_KEYS) the waiting scan runs with the credential', async () => {
    await start({ ENCRYPTION_KEY: second, VIGIL_PREVIOUS_ENCRYPTION_KEYS: first });
    expect(await vigil().services.scanWorker.runOnce()).to.deep.equal(['completed', 'completed']);
    expect(executor.jobs.map((j) => j.scanId)).to.include(waiting);
    for (const job of executor.jobs) expect(job.target.credential).to.deep.include({ kind: 'https_token', token: secret });
  });

  it('[S1.3.1-14] with the sealing key gone the scan fails permanently: "credential unusable", without the secret; storing it again heals it', async () => {
    await start({ ENCRYPTION_KEY: second });
    const scan = await requestScan(repo);
    expect(await vigil().services.scanWorker.runOnce()).to.deep.equal(['failed']);
    expect(executor.jobs, 'the executor never ran').to.have.length(0);
    const failed = await scanOf(scan.id);
    expect(failed).to.include({ status: 'failed', attempts: 1, errorKind: 'permanent' });
    expect(failed.error).to.match(/^credential unusable: stored credential \d+ \("ci"\) cannot be opened: it was sealed under key [0-9a-f]{16}/);
    expect(failed.error).not.to.contain(secret);
    const renewed = `${secret}-renewed`;
    expect((await vigil().request('PUT', `/credentials/${tokenId}`, { token: admin, body: { token: renewed } })).status).to.equal(200);
    await requestScan(repo);
    expect(await vigil().services.scanWorker.runOnce()).to.deep.equal(['completed']);
    expect(executor.jobs.at(-1)!.target.credential).to.deep.include({ token: renewed });
  });
});
