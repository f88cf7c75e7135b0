import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { Knex } from 'knex';
import { entryHash, GENESIS_HASH } from '../../domain/audit/chain';
import { describeEachEngine } from '../support/databases';
import { RunningVigil, startVigil } from '../support/vigil';

const READ_MODELS = ['accounts', 'api_keys', 'teams', 'team_members', 'team_grants', 'settings', 'solutions', 'projects', 'repositories', 'containers', 'audit_log'];

async function snapshot(knex: Knex): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of READ_MODELS) {
    const rows = await knex(table).select('*');
    out[table] = rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'boolean' ? Number(v) : v])))).sort();
  }
  return out;
}

/** A little of everything: accounts, keys, teams, targets, settings. */
async function populate(v: RunningVigil): Promise<void> {
  const admin = await v.signIn();
  const project = await v.request('POST', '/projects', { token: admin, body: { name: 'P' } });
  const team = await v.request('POST', '/teams', { token: admin, body: { name: 'T' } });
  const writer = await v.account(['writer']);
  await v.request('POST', `/teams/${team.body.id}/members`, { token: admin, body: { accountId: writer.id } });
  await v.request('POST', `/teams/${team.body.id}/grants`, { token: admin, body: { kind: 'project', id: project.body.id } });
  const repo = await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/a/b', projectId: project.body.id, scanCron: '0 4 * * *' } });
  await v.request('PATCH', `/repositories/${repo.body.id}`, { token: admin, body: { name: 'renamed', scanManualOnly: true } });
  const doomed = await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/a/c' } });
  await v.key(admin, { name: 'restricted', scopes: ['read'], repositoryId: doomed.body.id });
  await v.request('DELETE', `/repositories/${doomed.body.id}`, { token: admin });
  await v.request('POST', '/containers', { token: admin, body: { image: 'registry.example/x/y:1' } });
  await v.request('PATCH', '/settings', { token: admin, body: { triage_four_eyes: true } });
}

describeEachEngine('Projections: restart, rebuild, audit chain', ({ engine, get }) => {
  it('keeps everything across a restart and rebuilds identical read models from the log (trap 2)', async () => {
    const database = get();
    const first = await startVigil({ engine, database });
    await populate(first);
    const before = await snapshot(database.db.knex);
    await first.stop({ keepDatabase: true });

    const second = await startVigil({ engine, database });
    const admin = await second.signIn();
    const repos = await second.request('GET', '/repositories', { token: admin });
    expect(repos.body.map((r: { name: string }) => r.name)).to.deep.equal(['renamed']);
    expect(await snapshot(database.db.knex)).to.deep.equal({ ...before, audit_log: (await snapshot(database.db.knex)).audit_log });

    const settled = await snapshot(database.db.knex);
    await second.services.projections.stop();
    await second.services.projections.rebuild();
    expect(await snapshot(database.db.knex)).to.deep.equal(settled);
    await second.stop({ keepDatabase: true });
  });

  it('chains the audit log by hash over each event\'s whole stored envelope (scheme 3, recomputable with any SHA-256 tool); a changed event or entry breaks the chain', async () => {
    const knex = get().db.knex;
    const rows: Array<Record<string, any>> = await knex('audit_log').orderBy('seq');
    expect(rows.length).to.be.greaterThan(10);
    const commit = engine === 'mysql' ? knex.raw("'0' AS commit_id") : knex.raw('commit_id::text AS commit_id');
    const stored = new Map((await knex('events').select('position', commit, 'event_id', 'stream_id', 'revision', 'type', 'metadata', 'data'))
      .map((e: Record<string, any>) => [Number(e.position), e]));
    const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
    let prev = GENESIS_HASH;
    for (const r of rows) {
      const { hash, prev_hash: prevHash, ...entry } = r;
      expect(prevHash).to.equal(prev);
      // Independently of projections/audit.ts: the event row's stored texts, and the documented array.
      const e = stored.get(Number(entry.position))!;
      expect(entry.metadata_hash).to.equal(sha256(e.metadata));
      expect(entry.data_hash).to.equal(sha256(e.data));
      const fields = [Number(entry.seq), String(e.event_id), e.stream_id, Number(e.revision), Number(e.position), String(e.commit_id), e.type, sha256(e.metadata), sha256(e.data)];
      expect(sha256(prev + JSON.stringify(fields))).to.equal(hash);
      expect(entryHash(prev, { ...entry, seq: Number(entry.seq), position: Number(entry.position), revision: Number(entry.revision) } as never)).to.equal(hash);
      prev = hash;
    }
    const forged: Record<string, any> = { ...rows[3], data_hash: sha256(JSON.stringify({ forged: true })) };
    const { hash, prev_hash: prevHash, ...entry } = forged;
    expect(entryHash(prevHash, { ...entry, seq: Number(entry.seq), position: Number(entry.position), revision: Number(entry.revision) } as never)).not.to.equal(hash);
    expect(JSON.stringify(rows)).not.to.match(/scrypt\$/);
  });

  it('rebuilds the audit chain in scheme 2 when upgrading from scheme 1 (migration v013), and it verifies', async () => {
    const database = get();
    const first = await startVigil({ engine, database });
    await first.signIn();
    await first.stop({ keepDatabase: true });
    const knex = database.db.knex;
    const entries = Number((await knex('audit_log').count({ n: '*' }).first())!.n);
    expect(entries).to.be.greaterThan(0);
    // The state of a database written by a Vigil before v013: other hashes, v013 not yet run.
    await knex('audit_log').update({ hash: 'f'.repeat(64), data_hash: 'e'.repeat(64) });
    await knex('knex_migrations').where({ name: 'v013-audit-chain-scheme-2' }).del();
    const upgraded = await startVigil({ engine, database });
    const admin = await upgraded.signIn();
    const verification = await upgraded.request('GET', '/audit-log/verification', { token: admin });
    expect(verification.status).to.equal(200);
    expect(verification.body).to.include({ valid: true, brokenAt: null });
    expect(verification.body.entries).to.be.greaterThan(entries);
    expect(await knex('audit_log').where({ hash: 'f'.repeat(64) }).count({ n: '*' }).first()).to.satisfy((r: { n: unknown }) => Number(r.n) === 0);
    await upgraded.stop({ keepDatabase: true });
  });

  it('rebuilds the audit chain in scheme 3 when upgrading from scheme 2 (migration v016), and it verifies', async () => {
    const database = get();
    const first = await startVigil({ engine, database });
    await first.signIn();
    await first.stop({ keepDatabase: true });
    const knex = database.db.knex;
    const entries = Number((await knex('audit_log').count({ n: '*' }).first())!.n);
    expect(entries).to.be.greaterThan(0);
    // The state of a database written by a Vigil before v016: scheme 2 entries (no revision,
    // commit or metadata hash; other hashes), v016 not yet run.
    await knex.schema.alterTable('audit_log', (t) => { t.dropColumn('revision'); t.dropColumn('commit_id'); t.dropColumn('metadata_hash'); });
    await knex('audit_log').update({ hash: 'f'.repeat(64) });
    await knex('knex_migrations').where({ name: 'v016-audit-chain-scheme-3' }).del();
    const upgraded = await startVigil({ engine, database });
    const admin = await upgraded.signIn();
    const verification = await upgraded.request('GET', '/audit-log/verification', { token: admin });
    expect(verification.status).to.equal(200);
    expect(verification.body).to.include({ valid: true, brokenAt: null });
    expect(verification.body.entries).to.be.greaterThan(entries);
    expect(await knex('audit_log').where({ hash: 'f'.repeat(64) }).count({ n: '*' }).first()).to.satisfy((r: { n: unknown }) => Number(r.n) === 0);
    const listed = await upgraded.request('GET', '/audit-log?limit=1', { token: admin });
    expect(listed.body[0]).to.include({ seq: 1, revision: 0 });
    expect(listed.body[0].metadataHash).to.match(/^[0-9a-f]{64}$/);
    await upgraded.stop({ keepDatabase: true });
  });
});
