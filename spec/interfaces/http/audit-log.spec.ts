import { expect } from 'chai';
import * as fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';
import { RunningVigil, startVigil } from '../../support/vigil';

type Json = Record<string, any>;

/**
 * The audit log as auditors need it (issue #13): the audit entries of the capabilities Vigil has,
 * named by their rule ids; GET /audit-log filters and pages; the JSON-lines mirror; a broken chain
 * audited once with VGL-SEC-018; a rebuild yields the same chain, entry for entry.
 */
describe('Audit log for auditors: entries, filters, mirror, verification, rebuild', function () {
  this.timeout(90_000);
  let v: RunningVigil;
  let admin: string;
  let mirrorDir: string;
  let mirror: string;

  before(async () => {
    mirrorDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-audit-mirror-'));
    mirror = path.join(mirrorDir, 'audit.jsonl');
    v = await startVigil({ env: { VIGIL_AUDIT_MIRROR: mirror, VIGIL_AUDIT_MIRROR_MAX_SIZE: '1MB' } });
    admin = await v.signIn();
    // Every signalling event is queued while the export is on: the outbox tells which event signals what.
    await v.request('PUT', '/siem/config', { token: admin, body: { enabled: true, protocol: 'syslog_udp', endpoint: 'siem.example.com:514', minimumSeverity: 'low' } });
  });
  after(async () => { await v.stop(); fs.rmSync(mirrorDir, { recursive: true, force: true }); });

  const entries = async (query: string): Promise<Json[]> => {
    const r = await v.request('GET', `/audit-log?limit=1000&${query}`, { token: admin });
    expect(r.status, r.text).to.equal(200);
    return r.body;
  };
  const signalOf = async (eventId: string) => (await v.database.db.knex('siem_outbox').where({ event_id: eventId }).first())?.signature ?? null;

  async function declared(kinds: string[]) {
    const repositoryId = (await v.request('POST', '/repositories', { token: admin, body: { url: `https://git.example/audit/${Math.random().toString(36).slice(2)}` } })).body.id;
    const key = await v.key(admin, { name: 'pipeline', scopes: ['sarif_import', 'report_import', 'read'] });
    const governor = await v.account(['platform_governor']);
    const slug = `ci-${Math.random().toString(36).slice(2, 8)}`;
    const source = await v.request('POST', '/sarif-sources', { token: governor.token, body: {
      slug, name: 'CI', api_key_id: key.id, repository_id: repositoryId, kinds, ...(kinds.includes('sarif') ? { tools: ['Tool'] } : {}),
    } });
    expect(source.status, source.text).to.equal(201);
    return { repositoryId, key: key.key, governor, slug };
  }

  it('[S1.6-01] [S1.6-02] accepted coverage and test-report imports are audited COVERAGE_IMPORTED and TEST_REPORT_IMPORTED, with no SIEM event', async () => {
    const s = await declared(['coverage', 'test_report']);
    const lcov = 'SF:a.c\nLF:4\nLH:3\nend_of_record\n';
    expect((await v.request('POST', `/repositories/${s.repositoryId}/coverage-imports?format=lcov`, { apiKey: s.key, raw: lcov, contentType: 'text/plain' })).status).to.equal(201);
    const junit = '<?xml version="1.0"?><testsuite name="s"><testcase classname="s" name="t"/></testsuite>';
    expect((await v.request('POST', `/repositories/${s.repositoryId}/test-report-imports`, { apiKey: s.key, raw: junit, contentType: 'application/xml' })).status).to.equal(201);
    const [coverage] = await entries('operation=COVERAGE_IMPORTED');
    const [tests] = await entries('operation=TEST_REPORT_IMPORTED');
    expect(coverage).to.include({ operation: 'COVERAGE_IMPORTED', type: 'CoverageImportAccepted', address: '127.0.0.1', outcome: 'success' });
    expect(tests).to.include({ operation: 'TEST_REPORT_IMPORTED', type: 'TestReportImportAccepted' });
    expect(await signalOf(coverage.eventId)).to.equal(null);
    expect(await signalOf(tests.eventId)).to.equal(null);
  });

  it('[S1.6-03] [S2.6-56] a report import refused for what the key claims is audited REPORT_IMPORT_REFUSED and signals VGL-SEC-027', async () => {
    const s = await declared(['coverage']);
    const refused = await v.request('POST', `/repositories/${s.repositoryId}/test-report-imports`, { apiKey: s.key, raw: '<testsuite name="s"/>', contentType: 'application/xml' });
    expect(refused.status).to.equal(403);
    const [entry] = (await entries('operation=REPORT_IMPORT_REFUSED')).slice(-1);
    expect(entry).to.include({ operation: 'REPORT_IMPORT_REFUSED', address: '127.0.0.1', outcome: 'failure', target: 'import-refusals' });
    expect(await signalOf(entry.eventId)).to.equal('VGL-SEC-027');
  });

  it('[S1.6-04] [S2.6-51] a SARIF import refused for an undeclared tool is audited and signals VGL-SEC-023', async () => {
    const s = await declared(['sarif']);
    const sarif = JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name: 'Undeclared', version: '1' } }, results: [] }] });
    const refused = await v.request('POST', `/repositories/${s.repositoryId}/sarif-imports`, { apiKey: s.key, raw: sarif, contentType: 'application/sarif+json' });
    expect(refused.status, refused.text).to.be.oneOf([400, 403]);
    const [entry] = (await entries('operation=SARIF_IMPORT_REFUSED')).slice(-1);
    expect(entry, 'audited').to.not.equal(undefined);
    expect(await signalOf(entry.eventId)).to.equal('VGL-SEC-023');
  });

  it('[S1.6-05] [S2.6-50] declaring, disabling, enabling and removing a SARIF source are audited and signal VGL-SEC-022', async () => {
    const s = await declared(['sarif']);
    for (const [method, suffix] of [['POST', '/disable'], ['POST', '/enable'], ['DELETE', '']] as const) {
      const r = await v.request(method, `/sarif-sources/${s.slug}${suffix}`, { token: s.governor.token });
      expect(r.status, r.text).to.be.oneOf([200, 204]);
    }
    const chain = await entries(`target=source-${s.slug}`);
    expect(chain.map((e) => e.operation)).to.deep.equal(['SARIF_SOURCE_DECLARED', 'SARIF_SOURCE_DISABLED', 'SARIF_SOURCE_ENABLED', 'SARIF_SOURCE_REMOVED']);
    for (const e of chain) expect(await signalOf(e.eventId)).to.equal('VGL-SEC-022');
  });

  it('[S2.6-77] a setting change is audited SETTING_UPDATED (and signals VGL-SEC-019 when security-relevant)', async () => {
    await v.request('PATCH', '/settings', { token: admin, body: { triage_four_eyes: true, scan_default_interval_days: 3 } });
    const updated = await entries('operation=SETTING_UPDATED&target=settings');
    expect(updated.length).to.be.greaterThan(1);
    const signatures = await Promise.all(updated.slice(-2).map((e) => signalOf(e.eventId)));
    expect(signatures.sort()).to.deep.equal([null, 'VGL-SEC-019'].sort());
  });

  it('GET /audit-log filters by operation, actor, target, since and until, and pages with a Link that keeps the filters', async () => {
    const all = await entries('');
    const mine = await entries('actor=1');
    expect(mine.length).to.be.greaterThan(0);
    expect(mine.every((e) => e.actor === 1)).to.equal(true);
    const middle = all[Math.floor(all.length / 2)];
    const since = await entries(`since=${encodeURIComponent(middle.at)}`);
    expect(since.every((e) => e.at >= middle.at)).to.equal(true);
    const until = await entries(`until=${encodeURIComponent(middle.at)}`);
    expect(until.every((e) => e.at < middle.at)).to.equal(true);
    const page = await v.request('GET', '/audit-log?limit=2&actor=1', { token: admin });
    expect(page.body).to.have.length(2);
    const link = page.headers.get('link')!;
    expect(link).to.match(/actor=1/).and.match(/after=\d+/);
    const next = await v.request('GET', /<\/api\/v1([^>]+)>/.exec(link)![1], { token: admin });
    expect(next.body[0].seq).to.be.greaterThan(page.body[1].seq);
    const writer = await v.account(['writer']);
    expect((await v.request('GET', '/audit-log', { token: writer.token })).status).to.equal(403);
  });

  it('[S1.1-15] [S1.8.3-55] VIGIL_AUDIT_MIRROR writes every entry as one JSON line (appended, fsync\'d), and reopens the file after rotation', async () => {
    const m = v.services.auditMirror!;
    expect(m, 'a mirror when the setting names a path').to.not.equal(null);
    await m.turn();
    const lines = fs.readFileSync(mirror, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const chain = await entries('');
    expect(lines.map((l) => l.seq)).to.deep.equal(chain.map((e) => e.seq));
    expect(lines[lines.length - 1]).to.deep.equal(chain[chain.length - 1]);
    // logrotate moves the file and signals SIGHUP: the next entries go to a new file at the path
    fs.renameSync(mirror, `${mirror}.rotated`);
    m.askReopen();
    await v.request('PATCH', '/settings', { token: admin, body: { scan_default_interval_days: 4 } });
    expect(await m.turn()).to.equal(1);
    const fresh = fs.readFileSync(mirror, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(fresh).to.have.length(1);
    expect(fresh[0]).to.include({ operation: 'SETTING_UPDATED' });
    expect((fs.statSync(mirror).mode & 0o777).toString(8)).to.equal('600');
  });

  it('[S2.6-46] a broken chain is audited once (AUDIT_VERIFIED) and signals VGL-SEC-018; GET /audit-log/verification itself writes nothing', async () => {
    const knex = v.database.db.knex;
    const victim = (await entries('operation=SETTING_UPDATED'))[0];
    const saved = await knex('events').where({ event_id: victim.eventId }).first('data');
    await knex('events').where({ event_id: victim.eventId }).update({ data: JSON.stringify({ name: 'triage_four_eyes', value: false, previous: false }) });
    try {
      const before = await v.eventCount();
      const r = await v.request('GET', '/audit-log/verification', { token: admin });
      expect(r.body).to.include({ valid: false, brokenAt: victim.seq });
      expect(await v.eventCount()).to.equal(before);
      const first = await v.services.audit.verifyAndSignal({ actor: null, now: new Date() });
      expect(first).to.include({ valid: false, signalled: true });
      const again = await v.services.audit.verifyAndSignal({ actor: null, now: new Date() });
      expect(again.signalled, 'once').to.equal(false);
      const failures = await entries('operation=AUDIT_VERIFIED');
      expect(failures).to.have.length(1);
      expect(await signalOf(failures[0].eventId)).to.equal('VGL-SEC-018');
    } finally {
      await knex('events').where({ event_id: victim.eventId }).update({ data: saved.data });
    }
  });

  it('GET /audit-log/head names the newest entry (seq, hash), to be kept elsewhere', async () => {
    const chain = await entries('');
    const head = await v.request('GET', '/audit-log/head', { token: admin });
    expect(head.status).to.equal(200);
    expect(head.body).to.include({ seq: chain[chain.length - 1].seq, hash: chain[chain.length - 1].hash });
  });

  it('GET /audit-log/head answers unsigned while no platform key can be used (no ENCRYPTION_KEY, no VIGIL_SIGNING_KEY)', async () => {
    const head = await v.request('GET', '/audit-log/head', { token: admin });
    expect(head.status).to.equal(200);
    expect(head.headers.get('vigil-signature')).to.equal(null);
  });

  it('[S1.1-13] GET /audit-log/head is signed with the platform key: openssl verifies the bytes against GET /crypto/public-key.pub, so a truncation of the newest entries shows against a kept head', async () => {
    const signed = await startVigil({ env: { ENCRYPTION_KEY: randomBytes(32).toString('base64') } });
    try {
      const token = await signed.signIn();
      const res = await fetch(`${signed.url}/api/v1/audit-log/head`, { headers: { authorization: `Bearer ${token}` } });
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(res.status).to.equal(200);
      const head = JSON.parse(bytes.toString('utf8'));
      const newest = await signed.database.db.knex('audit_log').orderBy('seq', 'desc').first('seq', 'hash');
      expect(head).to.include({ seq: Number(newest.seq), hash: newest.hash });
      expect(res.headers.get('vigil-document-sha256')).to.equal(createHash('sha256').update(bytes).digest('hex'));
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-head-'));
      fs.writeFileSync(path.join(dir, 'pub.pem'), (await signed.request('GET', '/crypto/public-key.pub')).text);
      fs.writeFileSync(path.join(dir, 'sig.der'), Buffer.from(res.headers.get('vigil-signature')!, 'base64'));
      fs.writeFileSync(path.join(dir, 'head.json'), bytes);
      const verdict = execFileSync('openssl', ['dgst', '-sha256', '-verify', path.join(dir, 'pub.pem'), '-signature', path.join(dir, 'sig.der'), path.join(dir, 'head.json')], { encoding: 'utf8' }).trim();
      expect(verdict).to.equal('Verified OK');
      fs.rmSync(dir, { recursive: true, force: true });
    } finally {
      await signed.stop();
    }
  });

  it('npm run projections:rebuild yields the same chain, entry for entry', async () => {
    const before = await v.database.db.knex('audit_log').orderBy('seq').select();
    const outboxBefore = await v.database.db.knex('siem_outbox').orderBy('position').select();
    await v.services.projections.rebuild(v.services.projections.projections.filter((p) => p.name === 'audit' || p.name === 'siem'));
    const after = await v.database.db.knex('audit_log').orderBy('seq').select();
    expect(after).to.deep.equal(before);
    expect(await v.database.db.knex('siem_outbox').orderBy('position').select(), 'and the same outbox').to.deep.equal(outboxBefore);
  });
});
