import { expect } from 'chai';
import { Knex } from 'knex';
import { newEncryptionKey } from '../support/credentials';
import { describeEachEngine } from '../support/databases';
import { knownHostsFor, openSshKey } from '../support/ssh-keys';
import { startVigil } from '../support/vigil';

async function snapshot(knex: Knex): Promise<string> {
  const norm = (rows: Array<Record<string, unknown>>) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : String(v)])));
  return JSON.stringify([
    norm(await knex('credentials').orderBy('id')),
    norm(await knex('repositories').select('id', 'credential_id', 'credential_kind').orderBy('id')),
  ]);
}

describeEachEngine('Projections: stored credentials on every engine', ({ engine, get }) => {
  it('projects credentials without secrets and the credential a repository names; a rebuild gives the same rows (trap 2)', async () => {
    const v = await startVigil({ engine, database: get(), env: { ENCRYPTION_KEY: newEncryptionKey() } });
    try {
      const admin = await v.signIn();
      const token = await v.request('POST', '/credentials/https-tokens', { token: admin, body: { name: 'ci', host: 'git.example', username: 'oauth2', token: 'engine-matrix-secret' } });
      const key = await v.request('POST', '/credentials/ssh-keys', { token: admin, body: { name: 'deploy', privateKey: openSshKey().privateKey, knownHosts: knownHostsFor('git.example') } });
      const repo = await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/m/a', httpsTokenId: token.body.id } });
      expect(repo.body).to.include({ httpsTokenId: token.body.id, sshKeyId: null });
      await v.request('PATCH', `/repositories/${repo.body.id}`, { token: admin, body: { url: 'ssh://git@git.example/m/a', sshKeyId: key.body.id } });
      expect((await v.request('DELETE', `/credentials/${key.body.id}`, { token: admin })).status).to.equal(409);
      expect((await v.request('DELETE', `/credentials/${token.body.id}`, { token: admin })).status).to.equal(204);
      const before = await snapshot(v.database.db.knex);
      expect(before).to.contain('"credential_kind":"ssh_key"').and.not.to.contain('engine-matrix-secret');
      await v.services.projections.stop();
      await v.services.projections.rebuild();
      expect(await snapshot(v.database.db.knex)).to.equal(before);
    } finally {
      await v.stop({ keepDatabase: true });
    }
  });
});
