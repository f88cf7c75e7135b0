import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Knex } from 'knex';
import * as sinon from 'sinon';
import { StreamAppend } from '../../application/ports/event-store';
import { Cursor, NewEvent } from '../../domain/shared/event-envelope';
import { rebuildProjections } from '../../interfaces/cli/rebuild';
import { allProjections } from '../../projections';
import { cleanText } from '../../projections/engine/column-fit';
import { describeEachEngine, TestDatabase } from '../support/databases';
import { RunningVigil, startVigil } from '../support/vigil';

/**
 * An event the store accepted never stops a projection (ADR 0011). These events are appended to the
 * store directly, past every command's validation, as old events, other writers or EventStoreDB may
 * hold them: NUL characters, lone surrogates, strings far longer than their columns.
 */
const AT = '2024-05-01T10:00:00.000Z';
const NUL = '\u0000';
const TABLES = [...new Set(allProjections.flatMap((p) => p.tables))];
const KNOWN_HOSTS = 'git.example ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n'.repeat(1000);
const ISSUE_KEY = 'f'.repeat(64);

function event(type: string, data: unknown, metadata: Record<string, unknown> = {}): NewEvent {
  return { id: randomUUID(), type, data, metadata: { actor: null, at: AT, address: '10.0.0.1', ...metadata } };
}

const one = (stream: string, ...events: NewEvent[]): StreamAppend => ({ stream, events, expectedRevision: 'any' });

/** The main events of every projection, each string field holding a NUL or far more than its column. */
function unfitEvents(): StreamAppend[] {
  const repository = 7012;
  return [
    one('account-7001', event('AccountCreated', {
      id: 7001, username: `nul${NUL}user`, displayName: 'D'.repeat(10_000), roles: ['reader'], passwordHash: 'scrypt$unfit',
    })),
    one('apikey-7002', event('ApiKeyIssued', {
      id: 7002, accountId: 7001, name: `key${NUL}name`, scopes: ['read'], keyHash: `${'b'.repeat(64)}${NUL}${'b'.repeat(100)}`, keyPrefix: `vgl_k_${'p'.repeat(40)}`,
      restriction: { kind: `repository${NUL}${'r'.repeat(40)}`, id: repository }, expiresAt: null,
    })),
    one('team-7003', event('TeamCreated', { id: 7003, name: `T${NUL}\ud800${'t'.repeat(500)}` }),
      event('TeamGrantAdded', { teamId: 7003, kind: `project${NUL}${'k'.repeat(50)}`, targetId: 7011 })),
    one('solution-7010', event('SolutionCreated', { id: 7010, name: `S${NUL}${'s'.repeat(1000)}` })),
    one('project-7011', event('ProjectCreated', { id: 7011, name: `P${NUL}${'p'.repeat(1000)}`, solutionId: 7010 })),
    one(`repository-${repository}`, event('RepositoryRegistered', {
      id: repository, url: `https://git.example/${'u'.repeat(5000)}`, identity: `i${NUL}${'i'.repeat(3000)}`, uniquenessKey: `${'k'.repeat(64)}${NUL}more`,
      branch: `b${NUL}`.repeat(400), subPath: 's'.repeat(3000), name: `n${NUL}${'n'.repeat(400)}`, projectId: 7011, scanManualOnly: true,
      scanIntervalMinutes: null, scanCron: 'c'.repeat(400), credential: null,
    })),
    one('container-7013', event('ContainerImageRegistered', {
      id: 7013, image: `img${NUL}${'i'.repeat(3000)}`, name: 'N'.repeat(1000), projectId: null, scanManualOnly: true, scanIntervalMinutes: null, scanCron: null,
    })),
    one(`issue-${ISSUE_KEY}`, event('IssueDetected', {
      id: 7020, key: ISSUE_KEY, targetKind: 'repository', targetId: repository, type: 'sast', toolKey: `scanner:t${NUL}${'t'.repeat(400)}`,
      toolName: `tool${NUL}${'n'.repeat(400)}`, toolVersion: 'v'.repeat(400),
      provenance: { source: `src${NUL}${'s'.repeat(200)}`, origin: `scanner${NUL}${'o'.repeat(40)}`, toolName: 'x', toolVersion: null },
      ruleId: 'r'.repeat(2000), path: 'p/'.repeat(2500), line: 3, severity: 'high', identifier: `CVE-${NUL}${'9'.repeat(400)}`,
      packageName: `pkg${NUL}`.repeat(200), packageVersion: 'v'.repeat(300), fixable: false, title: `T${NUL}${'t'.repeat(10_000)}`, at: AT,
    })),
    one('feed-kev', event('KevEntriesListed', {
      version: `v${NUL}${'1'.repeat(100)}`, entries: [{
        cve: `CVE-${NUL}${'9'.repeat(400)}`, dateAdded: `2024-01-01${'x'.repeat(20)}`, vendorProject: `v${NUL}`.repeat(600), product: 'p'.repeat(1000),
        name: `n${NUL}`.repeat(100), dueDate: '2024-02-01', ransomware: 'Known'.repeat(20),
      }],
    }), event('FeedRefused', { feed: 'kev', reason: `why${NUL}${'w'.repeat(3000)}`, at: AT })),
    one('scan-7030', event('ScanRequested', {
      id: 7030, targetKind: 'repository', targetId: repository, trigger: `manual${NUL}${'m'.repeat(50)}`, requiresCredential: false, requestedBy: null, requestedAt: AT,
    })),
    one('badge-7031', event('ScorecardBadgeIssued', { id: 7031, tokenHash: `h${NUL}`.repeat(40), targetKind: 'repository', targetId: repository, actor: null, at: AT })),
    one('source-7040', event('SourceDeclared', {
      id: 7040, slug: `slug${NUL}${'s'.repeat(200)}`, name: 'n'.repeat(1000), apiKeyId: 7002, projectId: null, repositoryId: repository,
      kinds: ['sarif'], tools: [`t${NUL}`.repeat(10)],
    })),
    one('sarif-import-7041', event('SarifImportAccepted', {
      id: 7041, repositoryId: repository, sourceSlug: `s${NUL}`.repeat(300), accountId: 7001, apiKeyId: 7002, resultsCount: 1, createdCount: 1,
      resolvedCount: 0, reopenedCount: 0, tools: [{ name: `t${NUL}` }], sha256: `${'a'.repeat(64)}${NUL}zz`,
    })),
    one('coverage-import-7050', event('CoverageImportAccepted', {
      id: 7050, repositoryId: repository, sourceSlug: `s${NUL}`.repeat(300), accountId: 7001, format: `lcov${NUL}${'x'.repeat(50)}`, linesCovered: 1, linesTotal: 2,
      branchesCovered: null, branchesTotal: null, toolVersion: 'v'.repeat(400), commit: `c${NUL}`.repeat(100), branch: 'b'.repeat(400),
      packagesState: 'complete'.repeat(5), packages: [{ name: `p${NUL}` }], sha256: 's'.repeat(100),
    })),
    one('test-report-import-7052', event('TestReportImportAccepted', {
      id: 7052, repositoryId: repository, sourceSlug: 's'.repeat(300), accountId: 7001, documents: 1, suites: 1, tests: 1, failures: 0, errors: 0, skipped: 0,
      suiteTotals: [{ name: `x${NUL}` }], commit: 'c'.repeat(100), branch: `b${NUL}`, sha256: 's'.repeat(100),
    })),
    one('build-sbom-import-7051', event('BuildSbomImportAccepted', {
      id: 7051, repositoryId: repository, sourceSlug: `s${NUL}`.repeat(300), accountId: 7001, specVersion: '1.5'.repeat(10), components: 1,
      commit: 'c'.repeat(100), branch: 'b'.repeat(400), sha256: 's'.repeat(100),
    }), event('BuildSbomComponentsListed', {
      id: 7051, first: 0, repositoryId: repository, branch: 'b'.repeat(400),
      // Longer than MySQL's TEXT (65,535 bytes): cut there, whole on PostgreSQL.
      components: [{ name: `n${NUL}${'n'.repeat(70_000)}`, version: null, purl: `pkg:npm/x${NUL}`, type: 'library'.repeat(10), bomRef: null }],
    })),
    one('gate-7060', event('GateVerdictGiven', {
      id: 7060, targetKind: 'repository', targetId: repository, passed: false, violationCount: 1, counts: {}, violations: [{ ruleId: `x${NUL}` }],
      policy: { name: `p${NUL}` }, accountId: 7001, keyId: null, at: `${AT}${'x'.repeat(100)}`,
    })),
    one('credential-7070', event('CredentialSaved', {
      id: 7070, kind: 'https_token', name: `c${NUL}${'c'.repeat(500)}`, https: { host: 'h'.repeat(1000), username: `u${NUL}`.repeat(300) },
    })),
    one('credential-7071', event('CredentialSaved', {
      id: 7071, kind: 'ssh_key', name: 'deploy key', ssh: {
        publicKey: { type: 't'.repeat(300), fingerprint: `SHA256:${NUL}${'f'.repeat(300)}` }, knownHosts: KNOWN_HOSTS, hosts: [`git.example${NUL}`],
      },
    })),
    one('sign-in-refusals', event('SignInRefused', { username: 'nobody' }, { address: `${'a'.repeat(199)}${NUL}`, userAgent: `ua${NUL}`.repeat(500) })),
  ];
}

/** Changes to the rows written above (in a later batch: updates of stored rows, not of pending ones). */
function unfitChanges(): StreamAppend[] {
  return [
    one('account-7001', event('AccountUpdated', { id: 7001, displayName: `Upd${NUL}${'e'.repeat(9000)}` })),
    one('apikey-7002', event('ApiKeyRevoked', { id: 7002, reason: `r${NUL}${'r'.repeat(1000)}` })),
    one('repository-7012', event('TargetUpdated', { kind: 'repository', id: 7012, changes: { name: `renamed${NUL}${'r'.repeat(500)}`, branch: 'z'.repeat(600) } })),
    one(`issue-${ISSUE_KEY}`, event('TriageDecided', { status: 'not_affected', justification: `j${NUL}${'j'.repeat(200)}`, reviewDate: null })),
    one('scan-7030', event('ScanFailed', {
      id: 7030, reason: `boom${NUL}${'b'.repeat(70_000)}`, kind: `permanent${NUL}xx`, failedAt: AT, targetKind: 'repository', targetId: 7012,
    })),
    one('credential-7070', event('CredentialReplaced', {
      id: 7070, kind: 'https_token', name: `again${NUL}${'a'.repeat(500)}`, https: { host: 'g'.repeat(1000), username: 'x' },
    })),
  ];
}

const typesOf = (appends: StreamAppend[]) => [...new Set(appends.flatMap((a) => a.events.map((e) => e.type)))];

async function append(v: RunningVigil, appends: StreamAppend[]): Promise<Cursor> {
  return (await v.services.store.appendMany(appends)).cursor;
}

/** Every projection-owned table, rows as sorted JSON texts (booleans as numbers: MariaDB has none). */
async function snapshot(knex: Knex): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of TABLES) {
    const rows = await knex(table).select('*');
    out[table] = rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'boolean' ? Number(v) : v])))).sort();
  }
  return out;
}

async function failures(knex: Knex): Promise<string[]> {
  return (await knex('projection_failures').select('projection', 'position', 'type', 'error').orderBy(['projection', 'position']))
    .map((r: { projection: string; position: number | string; type: string; error: string }) => `${r.projection}@${Number(r.position)} ${r.type}: ${r.error}`);
}

async function positionOf(knex: Knex, stream: string, type: string): Promise<number> {
  return Number((await knex('events').where({ stream_id: stream, type }).first('position'))!.position);
}

function databaseUrl(database: TestDatabase): string {
  const t = database.target;
  if (t.engine === 'pglite') throw new Error('PGlite in memory is this process\'s only');
  const auth = `${encodeURIComponent(t.user)}${t.password ? `:${encodeURIComponent(t.password)}` : ''}@`;
  return `${t.engine === 'postgres' ? 'postgres' : 'mysql'}://${auth}${t.host}:${t.port}/${t.database}`;
}

/** `npm run projections:rebuild` as a process (the script runs the TypeScript sources with tsx). */
function rebuildCli(database: TestDatabase): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [require.resolve('tsx/cli'), 'interfaces/cli/rebuild-projections.ts'], {
      env: { ...process.env, VIGIL_DB_URL: databaseUrl(database), VIGIL_LOG_LEVEL: 'error', VIGIL_LOG_FORMAT: 'json' }, timeout: 120_000,
    }, (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }));
  });
}

describeEachEngine('Projections: whatever the log holds (ADR 0011)', ({ engine, get }) => {
  // A failed expectation must not leave a Vigil projecting into a dropped database.
  const running: RunningVigil[] = [];
  const start = async () => {
    const v = await startVigil({ engine, database: get() });
    running.push(v);
    return v;
  };
  afterEach(async () => {
    for (const v of running.splice(0)) await v.stop({ keepDatabase: true }).catch(() => undefined);
  });

  it('takes NUL characters, lone surrogates and strings far longer than their columns into every read model, and keeps them across a restart and a rebuild', async function () {
    this.timeout(180_000);
    const database = get();
    const knex = database.db.knex;
    const first = await start();
    const created = unfitEvents();
    expect(await first.services.projections.waitFor(await append(first, created), typesOf(created), 30_000)).to.equal(true);
    const changes = unfitChanges();
    expect(await first.services.projections.waitFor(await append(first, changes), typesOf(changes), 30_000)).to.equal(true);

    const health = await first.request('GET', '/health');
    expect(health.status).to.equal(200);
    expect(health.body).to.include({ status: 'up', eventStore: 'up', database: 'up' });
    expect(health.body.projections.map((p: { name: string }) => p.name)).to.have.members(allProjections.map((p) => p.name));
    for (const p of health.body.projections) {
      expect(p, p.name).to.deep.include({ lagEvents: 0, failures: { count: 0, latest: [] } });
      expect(p.position).to.be.a('number');
    }
    expect(await failures(knex)).to.deep.equal([]);

    // The rows exist, cleaned and cut to their columns.
    const row = (table: string, where: Record<string, unknown>) => knex(table).where(where).first();
    const account = await row('accounts', { id: 7001 });
    expect(account.username).to.equal('nul\ufffduser');
    expect(account.display_name).to.equal(`Upd\ufffd${'e'.repeat(196)}`);
    const key = await row('api_keys', { id: 7002 });
    expect(key.name).to.equal('key\ufffdname');
    expect(key.revoked_reason).to.have.length(200);
    expect((await row('teams', { id: 7003 })).name).to.equal(`T\ufffd\ufffd${'t'.repeat(197)}`);
    expect(await knex('team_grants').where({ team_id: 7003 })).to.have.length(1);
    expect((await row('solutions', { id: 7010 })).name).to.have.length(200);
    const repository = await row('repositories', { id: 7012 });
    expect(repository.url).to.have.length(2048);
    expect(repository.sub_path).to.have.length(1024);
    expect(repository.branch).to.equal('z'.repeat(255));
    expect(repository.name).to.equal(`renamed\ufffd${'r'.repeat(247)}`);
    expect((await row('containers', { id: 7013 })).image).to.have.length(1024);
    const issue = await row('issues', { id: 7020 });
    expect(issue.path).to.equal('p/'.repeat(2048));
    expect(issue.rule_id).to.equal('r'.repeat(512));
    expect(issue.title).to.equal(`T\ufffd${'t'.repeat(3998)}`);
    expect(issue.identifier).to.have.length(255);
    expect(issue).to.include({ triage_status: 'not_affected', justification: `j\ufffd${'j'.repeat(62)}` });
    expect((await row('scorecard_issues', { issue_key: ISSUE_KEY })).identifier).to.equal(issue.identifier);
    expect((await knex('kev_catalogue').first()).vendor_project).to.have.length(512);
    expect((await row('feed_state', { feed: 'kev' })).last_refusal).to.have.length(1024);
    const scan = await row('scans', { id: 7030 });
    expect(scan.status).to.equal('failed');
    expect(scan.error.startsWith('boom\ufffdbbb')).to.equal(true);
    // Longer than MySQL's TEXT (65,535 bytes): cut there, whole in PostgreSQL's text.
    if (engine === 'mysql') expect(Buffer.byteLength(scan.error)).to.be.at.most(65_535);
    else expect(scan.error).to.have.length(70_005);
    expect((await row('scorecard_badges', { id: 7031 })).token_hash).to.have.length(64);
    expect(await row('sarif_sources', { id: 7040 })).to.include({ slug: `slug\ufffd${'s'.repeat(95)}`, name: 'n'.repeat(200) });
    expect(await row('sarif_imports', { id: 7041 })).to.not.equal(undefined);
    expect((await row('coverage_imports', { id: 7050 })).format).to.equal(`lcov\ufffd${'x'.repeat(15)}`);
    expect(await row('test_report_imports', { id: 7052 })).to.not.equal(undefined);
    expect((await row('build_sbom_components', { import_id: 7051, ordinal: 0 })).name.startsWith('n\ufffdnnn')).to.equal(true);
    expect((await row('gate_verdicts', { id: 7060 })).at).to.equal(`${AT}xxxxxx`);
    expect(await row('credentials', { id: 7070 })).to.include({ name: `again\ufffd${'a'.repeat(194)}`, host: 'g'.repeat(300) });
    // known_hosts as the API takes it (up to 65,536 characters): whole on every engine (LONGTEXT on MariaDB, v014).
    expect((await row('credentials', { id: 7071 })).known_hosts).to.equal(KNOWN_HOSTS);
    const refusal = await knex('audit_log').where({ type: 'SignInRefused' }).orderBy('seq', 'desc').first();
    expect(refusal.address).to.equal('a'.repeat(64));
    // Nothing any engine would refuse is stored anywhere (MariaDB would have taken a NUL).
    for (const [table, rows] of Object.entries(await snapshot(knex))) {
      for (const text of rows) for (const value of Object.values(JSON.parse(text))) if (typeof value === 'string') expect(cleanText(value), table).to.equal(value);
    }

    // The audit chain hashes each event's data as stored, and its entries as stored: it verifies.
    const admin = await first.signIn();
    const verification = await first.request('GET', '/audit-log/verification', { token: admin });
    expect(verification.body).to.include({ valid: true, brokenAt: null });

    // A restart over the same database starts and changes nothing.
    const settled = await snapshot(knex);
    await first.stop({ keepDatabase: true });
    const second = await start();
    expect(await snapshot(knex)).to.deep.equal(settled);
    expect((await second.request('GET', '/teams', { token: await second.signIn() })).status).to.equal(200);

    // A rebuild gives identical rows and records nothing.
    const before = await snapshot(knex);
    await second.services.projections.stop();
    const lines: string[] = [];
    await rebuildProjections(second.services.projections, [], (line) => lines.push(line));
    expect(await snapshot(knex)).to.deep.equal(before);
    expect(await failures(knex)).to.deep.equal([]);
    expect(lines[lines.length - 1]).to.match(/^Rebuilt identity, .* in [\d.]+ s$/);
    await second.stop({ keepDatabase: true });
  });

  it('records an event a projection cannot take, logs it, shows it at /health and skips it: startup, later events, other projections and rebuilds go on', async function () {
    this.timeout(180_000);
    const database = get();
    const knex = database.db.knex;
    const team = (id: number, name: string) => one(`team-${id}`, event('TeamCreated', { id, name }));

    // Written while no projection runs: the next start's catch-up meets them.
    const writer = await start();
    await writer.services.projections.stop();
    await append(writer, [
      team(7101, 'before'),
      one('issue-broken-1', event('IssueDetected', null)),
      one('account-7102', event('AccountCreated', { id: 7102, username: 42, roles: 'not a list' })),
      team(7103, 'after'),
    ]);
    await writer.stop({ keepDatabase: true });

    const v = await start();
    const detected = await positionOf(knex, 'issue-broken-1', 'IssueDetected');
    const account = await positionOf(knex, 'account-7102', 'AccountCreated');
    expect((await knex('teams').whereIn('id', [7101, 7103]).pluck('name')).sort()).to.deep.equal(['after', 'before']);
    expect(await failures(knex)).to.satisfy((list: string[]) => list.length === 3
      && list[0].startsWith(`backlog@${detected} IssueDetected: TypeError`)
      && list[1].startsWith(`identity@${account} AccountCreated: TypeError`)
      && list[2].startsWith(`scorecards@${detected} IssueDetected: TypeError`));
    // The audit chain takes both (it hashes the data as stored, whatever its shape): it verifies.
    const admin = await v.signIn();
    expect((await v.request('GET', '/audit-log/verification', { token: admin })).body).to.include({ valid: true });

    // Live: logged at error level with the projection and the position; the events after it are projected.
    const logged = sinon.stub(v.services.log, 'error');
    try {
      const cursor = await append(v, [one('issue-broken-2', event('IssueDetected', null)), team(7104, 'later')]);
      expect(await v.services.projections.waitFor(cursor, ['IssueDetected', 'TeamCreated'], 30_000)).to.equal(true);
      const later = await positionOf(knex, 'issue-broken-2', 'IssueDetected');
      const messages = logged.getCalls().map((c) => String(c.args[0]));
      expect(messages.some((m) => m.includes('Projection backlog') && m.includes(`position ${later}`))).to.equal(true);
      expect(messages.some((m) => m.includes('Projection scorecards') && m.includes(`position ${later}`))).to.equal(true);
      expect(await knex('teams').where({ id: 7104 }).first()).to.include({ name: 'later' });

      // waitFor above follows the projections of those two types; the others (the SIEM outbox reads
      // every event) take the same events on their own loop: wait until /health shows none behind.
      const behind = async () => (await v.request('GET', '/health')).body.projections.filter((p: { lagEvents: number }) => p.lagEvents !== 0).length;
      for (let i = 0; i < 150 && (await behind()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      const health = await v.request('GET', '/health');
      expect(health.status).to.equal(200);
      expect(health.body).to.include({ status: 'up', eventStore: 'up', database: 'up' });
      const byName = new Map(health.body.projections.map((p: { name: string }) => [p.name, p]));
      for (const p of health.body.projections) expect(p.lagEvents, p.name).to.equal(0);
      const backlog = byName.get('backlog') as { failures: { count: number; latest: Array<Record<string, unknown>> } };
      expect(backlog.failures.count).to.equal(2);
      expect(backlog.failures.latest.map((f) => [f.position, f.type])).to.deep.equal([[later, 'IssueDetected'], [detected, 'IssueDetected']]);
      // The health answer needs no credential: the error text stays in the log and the table.
      expect(backlog.failures.latest[0]).to.not.have.property('error');
      expect((await knex('projection_failures').where({ projection: 'backlog', position: later }).first()).error).to.match(/^TypeError: /);
      const identity = byName.get('identity') as { failures: { count: number; latest: Array<Record<string, unknown>> } };
      expect(identity.failures).to.deep.include({ count: 1 });
      expect(identity.failures.latest[0]).to.include({ position: account, type: 'AccountCreated' });
      for (const name of ['targets', 'scans', 'sources', 'imports', 'gate', 'credentials', 'audit']) {
        expect((byName.get(name) as { failures: unknown }).failures, name).to.deep.equal({ count: 0, latest: [] });
      }
    } finally {
      logged.restore();
    }

    // The server goes on: a command and its read-your-writes.
    const posted = await v.request('POST', '/teams', { token: admin, body: { name: 'after the failures' } });
    expect(posted.status).to.equal(201);
    expect((await v.request('GET', '/teams', { token: admin })).body.map((t: { name: string }) => t.name)).to.include('after the failures');

    // A rebuild completes, records the same events again and gives the same rows.
    const recorded = await failures(knex);
    const settled = await snapshot(knex);
    await v.services.projections.stop();
    const lines: string[] = [];
    await rebuildProjections(v.services.projections, [], (line) => lines.push(line));
    expect(await failures(knex)).to.deep.equal(recorded);
    expect(await snapshot(knex)).to.deep.equal(settled);
    expect(lines.filter((l) => l.startsWith('  '))).to.have.length(5);
    expect(lines.some((l) => l.startsWith(`  identity: position ${account}, AccountCreated on account-7102`))).to.equal(true);
    expect(lines[lines.length - 1]).to.match(/; 5 event\(s\) recorded as failures$/);
    await v.stop({ keepDatabase: true });

    // `npm run projections:rebuild` as an operator runs it: exits 0 and prints them (a server database: PGlite here lives in this process).
    if (engine !== 'pglite') {
      const cli = await rebuildCli(database);
      expect(cli.code, cli.stderr).to.equal(0);
      expect(cli.stdout).to.include(`identity: position ${account}, AccountCreated on account-7102`);
      expect(cli.stdout).to.match(/backlog: position \d+, 0 behind, 2 failed event\(s\) skipped/);
      expect(await failures(knex)).to.deep.equal(recorded);
      expect(await snapshot(knex)).to.deep.equal(settled);
    }
  });
});
