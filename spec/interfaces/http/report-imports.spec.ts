import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect } from 'chai';
import type { CoverageFormat } from '../../../infrastructure/parsers/coverage';
import { corpusAvailable, corpusPath, requireCorpus } from '../../support/corpus';
import { importsProjection } from '../../../projections/imports/projection';
import { RunningVigil, startVigil } from '../../support/vigil';
import { makeZip, readCorpus, readManifest, verdictOfNote } from '../../parsers/support';
import { coberturaTotals, DECISIONS as COVERAGE_DECISIONS, jacocoTotals, lcovTotals, linesUnderMethodsOnly, pair } from '../../parsers/coverage-decisions';
import { DECISIONS as JUNIT_DECISIONS, independent as junitCounts, RETRIES } from '../../parsers/junit-decisions';
import { componentNames, DECISIONS as SBOM_DECISIONS } from '../../parsers/cyclonedx-decisions';

type Json = Record<string, any>;
const REPORT_KINDS = ['coverage', 'test_report', 'sbom'];
const sha = (body: string | Buffer): string => createHash('sha256').update(body).digest('hex');

/** A declared source for a repository, with its key (as in sarif-imports.spec.ts, for the report kinds). */
async function declared(v: RunningVigil, admin: string, options: { kinds?: string[]; scopes?: string[]; repositoryId?: number } = {}) {
  const repositoryId = options.repositoryId ?? (await v.request('POST', '/repositories', { token: admin, body: { url: `https://git.example/reports/${Math.random().toString(36).slice(2)}` } })).body.id;
  const key = await v.key(admin, { name: 'pipeline', scopes: options.scopes ?? ['report_import', 'read'] });
  const governor = await v.account(['platform_governor']);
  const source = await v.request('POST', '/sarif-sources', { token: governor.token, body: {
    slug: `ci-${Math.random().toString(36).slice(2, 8)}`, name: 'CI', api_key_id: key.id, repository_id: repositoryId, kinds: options.kinds ?? REPORT_KINDS,
  } });
  expect(source.status, source.text).to.equal(201);
  return { repositoryId, key: key.key, keyId: key.id, governor, slug: source.body.slug as string };
}
type Declared = Awaited<ReturnType<typeof declared>>;

// ---- Small documents, written here so that each figure is evident ----
const jacoco = (packages: Array<{ name: string; line: [number, number]; branch?: [number, number] }>, total?: { line: [number, number]; branch?: [number, number] }): string => {
  const counters = (c: { line: [number, number]; branch?: [number, number] }) =>
    `<counter type="LINE" missed="${c.line[0]}" covered="${c.line[1]}"/>${c.branch ? `<counter type="BRANCH" missed="${c.branch[0]}" covered="${c.branch[1]}"/>` : ''}`;
  const sum = (i: 0 | 1, k: 'line' | 'branch') => packages.reduce((n, p) => n + (p[k]?.[i] ?? 0), 0);
  const hasBranch = packages.some((p) => p.branch);
  const totals = total ?? { line: [sum(0, 'line'), sum(1, 'line')] as [number, number], branch: hasBranch ? [sum(0, 'branch'), sum(1, 'branch')] as [number, number] : undefined };
  return `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd"><report name="r">${packages.map((p) => `<package name="${p.name}">${counters(p)}</package>`).join('')}${counters(totals)}</report>`;
};
const lcov = (files: Array<[string, number, number]>): string => files.map(([sf, lf, lh]) => `SF:${sf}\nLF:${lf}\nLH:${lh}\nend_of_record\n`).join('');
const cobertura = (version: string) =>
  `<?xml version="1.0"?><coverage version="${version}"><packages><package name="p"><classes><class name="C" filename="p/C.py"><lines><line number="1" hits="1"/><line number="2" hits="0"/><line number="3" hits="2" branch="true" condition-coverage="50% (1/2)"/></lines></class></classes></package></packages></coverage>`;
const junit = (suite: string, cases: Array<'pass' | 'failure' | 'error' | 'skipped'>, extra = ''): string =>
  `<?xml version="1.0" encoding="UTF-8"?><testsuite name="${suite}">${cases.map((c, i) => `<testcase classname="${suite}" name="t${i}">${c === 'pass' ? '' : `<${c} message="m"/>`}${extra}</testcase>`).join('')}</testsuite>`;
const cyclonedx = (components: Json[], specVersion = '1.6'): string => JSON.stringify({ bomFormat: 'CycloneDX', specVersion, version: 1, components });
const library = (i: number, extra: Json = {}): Json => ({ type: 'library', name: `lib${i}`, version: `1.${i}.0`, purl: `pkg:npm/lib${i}@1.${i}.0`, 'bom-ref': `ref-${i}`, ...extra });

describe('coverage, test-report and build SBOM imports over HTTP', function () {
  let v: RunningVigil;
  let admin: string;
  let s: Declared;

  before(async () => {
    v = await startVigil();
    admin = await v.signIn();
    s = await declared(v, admin);
  });
  after(async () => { await v.stop(); });

  const post = (kind: 'coverage' | 'test-report' | 'build-sbom', repositoryId: number, key: string | null, body: string | Buffer, o: { query?: string; contentType: string; token?: string }) =>
    v.request('POST', `/repositories/${repositoryId}/${kind}-imports${o.query ? `?${o.query}` : ''}`, { apiKey: key ?? undefined, token: o.token, raw: body, contentType: o.contentType });
  const coverage = (d: Declared, body: string | Buffer, format: string | null, o: { query?: string; contentType?: string; key?: string | null; token?: string } = {}) =>
    post('coverage', d.repositoryId, o.key === undefined ? d.key : o.key, body, {
      query: [format === null ? '' : `format=${format}`, o.query ?? ''].filter(Boolean).join('&'),
      contentType: o.contentType ?? (format === 'lcov' ? 'text/plain' : 'application/xml'), token: o.token,
    });
  const testReport = (d: Declared, body: string | Buffer, o: { query?: string; contentType?: string; key?: string | null; token?: string } = {}) =>
    post('test-report', d.repositoryId, o.key === undefined ? d.key : o.key, body, { query: o.query, contentType: o.contentType ?? 'application/xml', token: o.token });
  const sbom = (d: Declared, body: string | Buffer, o: { query?: string; contentType?: string; key?: string | null; token?: string } = {}) =>
    post('build-sbom', d.repositoryId, o.key === undefined ? d.key : o.key, body, { query: o.query, contentType: o.contentType ?? 'application/vnd.cyclonedx+json', token: o.token });

  /** The status, a detail for a person, and nothing written but (when audited) the refusal's one event. */
  const refused = async (r: () => Promise<{ status: number; body: Json }>, status: number, audited = false) => {
    const before = await v.eventCount();
    const answer = await r();
    expect(answer.status, JSON.stringify(answer.body)).to.equal(status);
    expect(answer.body.detail).to.be.a('string').and.not.equal('');
    expect(await v.eventCount()).to.equal(before + (audited ? 1 : 0));
    return answer;
  };
  const lastEvent = async (type: string) => {
    const row = await v.database.db.knex('events').where({ type }).orderBy('position', 'desc').first();
    return row ? JSON.parse(row.data) : undefined;
  };

  describe('coverage imports', () => {
    it('[S1.4.3-05] [S1.4.3-07] [S1.4.3-08] [S1.2.6-03] [S1.2.6-07] a JaCoCo report as application/xml: 201 with the counts, packagesState and SHA-256; audited COVERAGE_IMPORTED', async () => {
      const body = jacoco([{ name: 'org/a', line: [2, 8], branch: [1, 3] }, { name: 'org/b', line: [5, 5], branch: [1, 1] }]);
      const r = await coverage(s, body, 'jacoco');
      expect(r.status, r.text).to.equal(201);
      expect(r.body).to.deep.equal({
        id: r.body.id, linesCovered: 13, linesTotal: 20, branchesCovered: 4, branchesTotal: 6, toolVersion: null, commit: null, branch: null, packagesState: 'kept', sha256: sha(body),
      });
      const event = await lastEvent('CoverageImportAccepted');
      expect(event).to.include({ id: r.body.id, audit: 'COVERAGE_IMPORTED', sourceSlug: s.slug, format: 'jacoco' });
      const one = await v.request('GET', `/repositories/${s.repositoryId}/coverage-imports/${r.body.id}`, { token: admin });
      expect(one.body.packages).to.deep.equal([
        { name: 'org/a', linesCovered: 8, linesTotal: 10, branchesCovered: 3, branchesTotal: 4 },
        { name: 'org/b', linesCovered: 5, linesTotal: 10, branchesCovered: 1, branchesTotal: 2 },
      ]);
    });

    it('[S1.2.6-04] [S1.2.6-05] a report without branches reads null of null, never 0 of 0; toolVersion when the report names it, else null', async () => {
      const none = await coverage(s, lcov([['src/a.c', 10, 4]]), 'lcov');
      expect(none.body).to.include({ linesCovered: 4, linesTotal: 10, branchesCovered: null, branchesTotal: null, toolVersion: null });
      const named = await coverage(s, cobertura('7.2.1'), 'cobertura');
      expect(named.status, named.text).to.equal(201);
      expect(named.body).to.include({ linesCovered: 2, linesTotal: 3, branchesCovered: 1, branchesTotal: 2, toolVersion: '7.2.1' });
    });

    it('[S1.4.3-06] [S1.4.3-44] [S1.2.6-06] commit and branch are kept exactly as stated, verified against nothing', async () => {
      const r = await coverage(s, lcov([['a.c', 1, 1]]), 'lcov', { query: 'commit=DeadBeef0123&branch=feature%2F%C3%A9t%C3%A9' });
      expect(r.status, r.text).to.equal(201);
      expect(r.body).to.include({ commit: 'DeadBeef0123', branch: 'feature/été' });
      const list = await v.request('GET', `/repositories/${s.repositoryId}/coverage-imports`, { token: admin });
      expect(list.body[0]).to.include({ id: r.body.id, commit: 'DeadBeef0123', branch: 'feature/été', source: s.slug });
      // A pipeline that does not percent-encode the slash of its branch is understood alike.
      const raw = await coverage(s, lcov([['a.c', 1, 1]]), 'lcov', { query: 'commit=abc&branch=release/2.0' });
      expect(raw.status, raw.text).to.equal(201);
      expect(raw.body).to.include({ branch: 'release/2.0' });
    });

    it('[S1.4.3-43] a commit that is not hexadecimal (or empty, or over 64 digits): 400, nothing written', async () => {
      for (const commit of ['main', 'g123', '12%2034', '', 'a'.repeat(65)]) {
        const r = await refused(() => coverage(s, lcov([['a.c', 1, 1]]), 'lcov', { query: `commit=${commit}` }), 400);
        expect(r.body.detail, commit).to.match(/hexadecimal|digits|empty/i);
      }
    });

    it('[S1.4.3-05] [S1.7-21] [S1.4.3-13] format missing or unknown: 400, never guessed; a content type the format does not take: 400', async () => {
      const body = jacoco([{ name: 'p', line: [1, 1] }]);
      const missing = await refused(() => coverage(s, body, null), 400);
      expect(missing.body.detail).to.match(/jacoco, cobertura or lcov/);
      expect((await refused(() => coverage(s, body, 'clover'), 400)).body.detail).to.contain('"clover" is not one of jacoco, cobertura, lcov');
      await refused(() => coverage(s, body, 'JACOCO'), 400);
      expect((await refused(() => coverage(s, body, 'jacoco', { contentType: 'text/plain' }), 400)).body.detail).to.contain('application/xml');
      await refused(() => coverage(s, lcov([['a.c', 1, 1]]), 'lcov', { contentType: 'application/xml' }), 400);
    });

    it('[S1.7-22] [S1.4.3-13] a body not readable as the declared format: 400 (a JaCoCo report declared Cobertura, lcov declared JaCoCo)', async () => {
      await refused(() => coverage(s, jacoco([{ name: 'p', line: [1, 1] }]), 'cobertura'), 400);
      await refused(() => coverage(s, cobertura('1'), 'jacoco'), 400);
      await refused(() => coverage(s, lcov([['a.c', 1, 1]]), 'jacoco', { contentType: 'application/xml' }), 400);
    });

    it('[S1.4.3-36] an empty report (no line) is 400 and never recorded as zero', async () => {
      const before = (await v.request('GET', `/repositories/${s.repositoryId}/coverage-imports`, { token: admin })).body.length;
      await refused(() => coverage(s, '', 'lcov'), 400);
      await refused(() => coverage(s, '<report name="empty"/>', 'jacoco'), 400);
      await refused(() => coverage(s, lcov([['a.c', 0, 0]]), 'lcov'), 400);
      expect((await v.request('GET', `/repositories/${s.repositoryId}/coverage-imports`, { token: admin })).body.length).to.equal(before);
    });

    it('[S1.4.3-48] [S1.4.3-49] [S1.4.3-50] [S1.4.3-51] [S1.2.6-08] [S1.2.6-09] too_many, path_refused and inconsistent packages are accepted (201) and keep no per-package counters', async () => {
      const many = lcov(Array.from({ length: 10_001 }, (_, i): [string, number, number] => [`d${i}/f.c`, 2, 1]));
      const long = lcov([[`${'x'.repeat(1001)}/f.c`, 2, 1], ['ok/f.c', 2, 2]]);
      const control = lcov([['bad\u0007dir/f.c', 2, 1]]);
      const inconsistent = jacoco([{ name: 'org/a', line: [1, 1] }], { line: [5, 5] });
      for (const [body, format, state] of [[many, 'lcov', 'too_many'], [long, 'lcov', 'path_refused'], [control, 'lcov', 'path_refused'], [inconsistent, 'jacoco', 'inconsistent']] as const) {
        const r = await coverage(s, body, format);
        expect(r.status, r.text).to.equal(201);
        expect(r.body.packagesState).to.equal(state);
        expect((await v.request('GET', `/repositories/${s.repositoryId}/coverage-imports/${r.body.id}`, { token: admin })).body.packages).to.equal(null);
      }
    });

    it('[S1.2.6-09] [S1.4.3-47] 9,000 kept packages (over one event) read back whole and in order, also after a rebuild of the read model', async () => {
      const files = Array.from({ length: 9000 }, (_, i): [string, number, number] => [`src/module-${String(i).padStart(5, '0')}/${'deep/'.repeat(10)}file.ts`, 3, i % 4]);
      const r = await coverage(s, lcov(files), 'lcov');
      expect(r.status, r.text).to.equal(201);
      expect(r.body).to.include({ packagesState: 'kept', linesTotal: 27_000 });
      const events = await v.database.db.knex('events').where({ stream_id: `coverage-import-${r.body.id}` }).select('type');
      expect(events.length).to.be.above(1);
      const read = async () => (await v.request('GET', `/repositories/${s.repositoryId}/coverage-imports/${r.body.id}`, { token: admin })).body;
      const before = await read();
      expect(before.packages).to.have.length(9000);
      expect(before.packages.map((p: Json) => p.name)).to.deep.equal(files.map(([f]) => f.slice(0, f.lastIndexOf('/'))));
      await v.services.projections.rebuild([importsProjection]);
      await v.services.projections.waitFor(await v.services.store.head(), ['CoverageImportAccepted'], 10_000);
      expect(await read()).to.deep.equal(before);
    });

    it('[S1.4.3-12] [S1.2.6-12] GET answers the latest 50, newest first; an unseen repository answers 404', async () => {
      const t = await declared(v, admin);
      const ids: number[] = [];
      for (let i = 0; i < 52; i++) ids.push((await coverage(t, lcov([['a.c', 52, i + 1]]), 'lcov')).body.id);
      const list = await v.request('GET', `/repositories/${t.repositoryId}/coverage-imports`, { apiKey: t.key });
      expect(list.status, list.text).to.equal(200);
      expect(list.body.map((x: Json) => x.id)).to.deep.equal(ids.slice(2).reverse());
      expect(list.body[0]).to.include({ linesCovered: 52, linesTotal: 52, format: 'lcov', packagesState: 'kept' });
      const reader = await v.account(['reader']);
      expect((await v.request('GET', `/repositories/${t.repositoryId}/coverage-imports`, { token: reader.token })).status).to.equal(404);
      expect((await v.request('GET', '/repositories/99999/coverage-imports', { token: admin })).status).to.equal(404);
    });

    it('[S1.8.1-09] a 2 MB report (over the 1 MB default) is accepted: the route has its own limit', async () => {
      const files = Array.from({ length: 40_000 }, (_, i): [string, number, number] => [`src/f${i}.c`, 1, 1]);
      const body = lcov(files);
      expect(Buffer.byteLength(body)).to.be.above(1024 * 1024);
      const r = await coverage(s, body, 'lcov');
      expect(r.status, r.text).to.equal(201);
      expect(r.body).to.include({ linesTotal: 40_000, packagesState: 'kept' });
    });
  });

  describe('test-report imports', () => {
    it('[S1.4.3-09] [S1.4.3-10] [S1.2.6-10] one JUnit document as application/xml: 201 with documents, suites, tests, failures, errors, skipped and SHA-256; audited TEST_REPORT_IMPORTED', async () => {
      const body = junit('pkg.Suite', ['pass', 'failure', 'error', 'skipped', 'pass']);
      const r = await testReport(s, body, { query: 'commit=abc123&branch=main' });
      expect(r.status, r.text).to.equal(201);
      expect(r.body).to.deep.equal({ id: r.body.id, documents: 1, suites: 1, tests: 5, failures: 1, errors: 1, skipped: 1, sha256: sha(body) });
      expect(await lastEvent('TestReportImportAccepted')).to.include({ id: r.body.id, audit: 'TEST_REPORT_IMPORTED', commit: 'abc123', branch: 'main' });
      const one = await v.request('GET', `/repositories/${s.repositoryId}/test-report-imports/${r.body.id}`, { token: admin });
      expect(one.body.suiteTotals).to.deep.equal([{ name: 'pkg.Suite', tests: 5, failures: 1, errors: 1, skipped: 1 }]);
      expect(one.body).to.include({ commit: 'abc123', branch: 'main', sha256: sha(body) });
    });

    it('[S1.4.3-09] [S1.2.6-11] a zip of documents as application/zip: figures over every document; the document itself is kept nowhere', async () => {
      const marker = `never-kept-${Math.random().toString(36).slice(2)}`;
      const zip = await makeZip([
        ['reports/', null],
        ['reports/TEST-a.xml', junit('a', ['pass', 'pass'], `<system-out>${marker}</system-out>`)],
        ['reports/TEST-b.xml', junit('b', ['failure'])],
        ['reports/TEST-c.xml', junit('c', ['skipped', 'error', 'pass'])],
        ['reports/summary.txt', 'not a report'],
      ]);
      const r = await testReport(s, zip, { contentType: 'application/zip' });
      expect(r.status, r.text).to.equal(201);
      expect(r.body).to.include({ documents: 3, suites: 3, tests: 6, failures: 1, errors: 1, skipped: 1, sha256: sha(zip) });
      const hits = await v.database.db.knex('events').where('data', 'like', `%${marker}%`).count({ n: '*' }).first();
      expect(Number(hits!.n)).to.equal(0);
      const row = await v.database.db.knex('test_report_imports').where({ id: r.body.id }).first();
      expect(JSON.stringify(row)).to.not.contain(marker);
    });

    it('[S1.4.3-37] a report without a test case is 400 and never recorded as zero', async () => {
      await refused(() => testReport(s, '<testsuites/>'), 400);
      await refused(() => testReport(s, '<testsuite name="x" tests="0"></testsuite>'), 400);
    });

    it('[S1.4.3-38] [S1.7-22] a document declaring entities, a non-JUnit root and a corrupt document: 400', async () => {
      await refused(() => testReport(s, '<?xml version="1.0"?><!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]><testsuite><testcase name="&x;"/></testsuite>'), 400);
      await refused(() => testReport(s, '<coverage/>'), 400);
      await refused(() => testReport(s, '<testsuite><testcase name="a">'), 400);
      await refused(() => testReport(s, junit('a', ['pass']), { contentType: 'application/zip' }), 400);
    });

    it('[S1.4.3-39] [S1.4.3-40] [S1.4.3-41] [S1.4.3-42] [S1.7-23] a zip over its guards: 400 (5,001 entries, an entry over 32 MB inflated, over 256 MB in all, a nested archive)', async function () {
      this.timeout(120_000);
      const doc = junit('s', ['pass']);
      await refused(async () => testReport(s, await makeZip(Array.from({ length: 5001 }, (_, i): [string, string] => [`r/${i}.xml`, doc])), { contentType: 'application/zip' }), 400);
      const entry = await refused(async () => testReport(s, await makeZip([['big.xml', Buffer.alloc(33 * 1024 * 1024, 0x20)]]), { contentType: 'application/zip' }), 400);
      expect(entry.body.detail).to.match(/guards/);
      const nine = Array.from({ length: 9 }, (_, i): [string, Buffer] => [`r/${i}.xml`, Buffer.alloc(30 * 1024 * 1024, 0x20)]);
      const total = await refused(async () => testReport(s, await makeZip(nine), { contentType: 'application/zip' }), 400);
      expect(total.body.detail).to.match(/in all/);
      const inner = await makeZip([['a.xml', doc]]);
      await refused(async () => testReport(s, await makeZip([['a.xml', doc], ['nested.zip', inner]]), { contentType: 'application/zip' }), 400);
      await refused(async () => testReport(s, await makeZip([['a.xml', doc], ['hidden.xml', inner]]), { contentType: 'application/zip' }), 400);
    });

    it('[S1.4.3-43] a bad commit: 400; [S1.4.3-12] GET answers the latest imports, newest first', async () => {
      await refused(() => testReport(s, junit('a', ['pass']), { query: 'commit=HEAD' }), 400);
      const a = await testReport(s, junit('a', ['pass']));
      const b = await testReport(s, junit('b', ['pass', 'failure']));
      const list = await v.request('GET', `/repositories/${s.repositoryId}/test-report-imports`, { token: admin });
      expect(list.body.slice(0, 2).map((x: Json) => x.id)).to.deep.equal([b.body.id, a.body.id]);
      expect(list.body[0]).to.include({ documents: 1, suites: 1, tests: 2, failures: 1, source: s.slug });
      expect(list.body[0]).to.not.have.property('suiteTotals');
    });
  });

  describe('build SBOM imports', () => {
    it('[S1.4.3-11] [S1.4.3-58] a CycloneDX JSON SBOM: 201 with id, components, specVersion, sha256; each component kept with source build', async () => {
      const body = cyclonedx([library(1), { ...library(2), components: [library(3)] }], '1.5');
      const r = await sbom(s, body, { query: 'commit=0123abcd&branch=main' });
      expect(r.status, r.text).to.equal(201);
      expect(r.body).to.deep.equal({ id: r.body.id, components: 3, specVersion: '1.5', sha256: sha(body) });
      const one = await v.request('GET', `/repositories/${s.repositoryId}/build-sbom-imports/${r.body.id}`, { token: admin });
      expect(one.body).to.include({ components: 3, specVersion: '1.5', commit: '0123abcd', branch: 'main' });
      expect(one.body.componentList).to.deep.equal([1, 2, 3].map((i) => ({ name: `lib${i}`, version: `1.${i}.0`, purl: `pkg:npm/lib${i}@1.${i}.0`, type: 'library', bomRef: `ref-${i}`, source: 'build' })));
      const list = await v.request('GET', `/repositories/${s.repositoryId}/build-sbom-imports`, { token: admin });
      expect(list.body[0]).to.include({ id: r.body.id, components: 3, source: s.slug });
      expect((await v.request('GET', `/repositories/${s.repositoryId}/build-sbom-imports/99999`, { token: admin })).status).to.equal(404);
    });

    it('[S1.4.3-55] CycloneDX XML: 400, whether declared as XML or sent as JSON; SPDX: 400', async () => {
      const xml = '<?xml version="1.0"?><bom xmlns="http://cyclonedx.org/schema/bom/1.5" version="1"><components/></bom>';
      for (const contentType of ['application/vnd.cyclonedx+xml', 'application/xml', 'application/vnd.cyclonedx+json']) {
        expect((await refused(() => sbom(s, xml, { contentType }), 400)).body.detail).to.match(/XML is not accepted/);
      }
      expect((await refused(() => sbom(s, JSON.stringify({ spdxVersion: 'SPDX-2.3', SPDXID: 'SPDXRef-DOCUMENT' })), 400)).body.detail).to.match(/SPDX/);
      await refused(() => sbom(s, JSON.stringify({ spdxVersion: 'SPDX-2.3', SPDXID: 'SPDXRef-DOCUMENT' }), { contentType: 'application/spdx+json' }), 400);
    });

    it('[S1.4.3-52] [S1.7-22] a spec version outside 1.4 to 1.6, a document the schema refuses, or not JSON: 400', async () => {
      await refused(() => sbom(s, cyclonedx([library(1)], '1.3')), 400);
      await refused(() => sbom(s, cyclonedx([library(1)], '1.7')), 400);
      await refused(() => sbom(s, cyclonedx([{ name: 'no type' }])), 400);
      await refused(() => sbom(s, '{"bomFormat": "CycloneDX", '), 400);
      for (const version of ['1.4', '1.5', '1.6']) expect((await sbom(s, cyclonedx([library(1)], version))).status).to.equal(201);
    });

    it('[S1.4.3-53] [S1.4.3-54] no component: 400; 50,000 components accepted (and kept over several events); 50,001: 400', async function () {
      this.timeout(120_000);
      await refused(() => sbom(s, cyclonedx([])), 400);
      await refused(() => sbom(s, JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1 })), 400);
      const over = await refused(() => sbom(s, cyclonedx(Array.from({ length: 50_001 }, (_, i) => library(i)))), 400);
      expect(over.body.detail).to.match(/50000|50,000/);
      const r = await sbom(s, cyclonedx(Array.from({ length: 50_000 }, (_, i) => library(i))));
      expect(r.status, r.text).to.equal(201);
      expect(r.body.components).to.equal(50_000);
      const rows = await v.database.db.knex('build_sbom_components').where({ import_id: r.body.id }).count({ n: '*' }).first();
      expect(Number(rows!.n)).to.equal(50_000);
      const last = await v.database.db.knex('build_sbom_components').where({ import_id: r.body.id, ordinal: 49_999 }).first();
      expect(last).to.include({ name: 'lib49999', purl: 'pkg:npm/lib49999@1.49999.0', source: 'build' });
    });

    it('[S1.4.3-57] [S1.4.3-56] a stated branch limits the SBOM to that branch\'s scans; one without a branch applies to every branch; the newest applicable wins', async () => {
      const t = await declared(v, admin);
      const general = await sbom(t, cyclonedx([library(1)]));
      const release = await sbom(t, cyclonedx([library(2), library(3)]), { query: 'branch=release' });
      expect(release.status).to.equal(201);
      const inventory = (branch: string) => v.services.importQueries.buildSbom.inventoryFor(t.repositoryId, branch);
      expect((await inventory('release')).importId).to.equal(release.body.id);
      expect((await inventory('release')).components.map((c) => c.name)).to.deep.equal(['lib2', 'lib3']);
      expect((await inventory('main')).importId).to.equal(general.body.id);
      const later = await sbom(t, cyclonedx([library(4)]));
      expect((await inventory('release')).importId).to.equal(later.body.id);
      expect((await inventory('release')).components.every((c) => c.source === 'build')).to.equal(true);
      expect((await v.services.importQueries.buildSbom.inventoryFor(s.repositoryId + 100_000, 'main')).components).to.deep.equal([]);
    });
  });

  describe('refusals every report import shares (spec 1 §7 import table)', () => {
    type Options = { key?: string | null; token?: string; query?: string };
    const kinds = [
      { kind: 'coverage', send: (d: Declared, o: Options = {}) => coverage(d, lcov([['a.c', 1, 1]]), 'lcov', o) },
      { kind: 'test_report', send: (d: Declared, o: Options = {}) => testReport(d, junit('s', ['pass']), o) },
      { kind: 'sbom', send: (d: Declared, o: Options = {}) => sbom(d, cyclonedx([library(1)]), o) },
    ];

    for (const { kind, send } of kinds) {
      describe(kind, () => {
        it(`[S1.4.3-14] a session, not an integration key: 403, audited REPORT_IMPORT_REFUSED with VGL-SEC-027`, async () => {
          await refused(() => send(s, { key: null, token: admin }), 403, true);
          expect(await lastEvent('ReportImportRefused')).to.deep.include({ kind, audit: 'REPORT_IMPORT_REFUSED', siem: { signature: 'VGL-SEC-027' } });
        });

        it('[S1.7-17] [S1.4.3-15] a key without report_import: 403 naming the scope, audited', async () => {
          const t = await declared(v, admin, { scopes: ['sarif_import', 'read'] });
          const r = await refused(() => send(t), 403, true);
          expect(r.body.detail).to.contain('report_import');
        });

        it('[S1.4.3-16] a key with no enabled source (none declared, or disabled): 403, audited', async () => {
          const { key } = await v.key(admin, { name: 'stray', scopes: ['report_import'] });
          await refused(() => send(s, { key }), 403, true);
          const t = await declared(v, admin);
          await v.request('POST', `/sarif-sources/${t.slug}/disable`, { token: t.governor.token });
          await refused(() => send(t), 403, true);
          await v.request('POST', `/sarif-sources/${t.slug}/enable`, { token: t.governor.token });
          expect((await send(t)).status).to.equal(201);
        });

        it('[S1.7-18] a kind the source does not declare: 403 naming it, audited', async () => {
          const t = await declared(v, admin, { kinds: REPORT_KINDS.filter((k) => k !== kind) });
          const r = await refused(() => send(t), 403, true);
          expect(r.body.detail).to.contain(kind);
        });

        it('[S1.7-19] [S1.4.3-17] a repository unseen, unknown or outside the source\'s scope: 404, the same answer, nothing written', async () => {
          const elsewhere = (await v.request('POST', '/repositories', { token: admin, body: { url: `https://git.example/reports/else-${kind}` } })).body.id;
          const outside = await refused(() => send({ ...s, repositoryId: elsewhere }), 404);
          const unknown = await refused(() => send({ ...s, repositoryId: 99_999 }), 404);
          expect(outside.body.title).to.equal(unknown.body.title);
        });

        it('[S1.4.3-18] the source is the key\'s: the record names it, and a request naming a source is refused (400)', async () => {
          const r = await send(s);
          expect(r.status, r.text).to.equal(201);
          const event = await lastEvent(kind === 'coverage' ? 'CoverageImportAccepted' : kind === 'test_report' ? 'TestReportImportAccepted' : 'BuildSbomImportAccepted');
          expect(event).to.include({ id: r.body.id, sourceSlug: s.slug, apiKeyId: s.keyId });
          await refused(() => send(s, { query: 'source=other' }), 400);
        });
      });
    }

    it('[S1.7-25] [S1.8.1-09] [S1.8.1-10] [S1.8.1-11] over the route\'s own limit: 413 naming the limit and its setting, nothing written', async function () {
      this.timeout(60_000);
      const cov = await refused(() => coverage(s, Buffer.alloc(16 * 1024 * 1024 + 1, 0x20), 'lcov'), 413);
      expect(cov.body.detail).to.contain('16MB').and.contain('VIGIL_MAX_BODY_COVERAGE_IMPORT');
      const tr = await refused(() => testReport(s, Buffer.alloc(32 * 1024 * 1024 + 1, 0x20), { contentType: 'application/zip' }), 413);
      expect(tr.body.detail).to.contain('32MB').and.contain('VIGIL_MAX_BODY_TEST_REPORT_IMPORT');
      const sb = await refused(() => sbom(s, Buffer.alloc(32 * 1024 * 1024 + 1, 0x20)), 413);
      expect(sb.body.detail).to.contain('32MB').and.contain('VIGIL_MAX_BODY_SBOM_IMPORT');
    });
  });

  describe('the real-world corpus through HTTP (one source declaring coverage, test_report and sbom)', function () {
    before(function () { requireCorpus(this.test!.parent!); });
    const rows = corpusAvailable() ? readManifest('MANIFEST-reports.tsv') : [];
    let c: Declared | undefined;
    const source = async () => (c ??= await declared(v, admin));

    it('every file under coverage/, junit/ and sbom/ has a manifest row, so none is skipped', () => {
      const walk = (dir: string): string[] => fs.readdirSync(corpusPath(dir), { withFileTypes: true })
        .flatMap((e) => (e.isDirectory() ? walk(path.posix.join(dir, e.name)) : [path.posix.join(dir, e.name)]));
      const listed = new Set(rows.map((r) => r.file));
      expect(['coverage', 'junit', 'sbom'].flatMap(walk).filter((f) => !listed.has(f))).to.deep.equal([]);
    });

    for (const row of rows.filter((r) => r.file.startsWith('coverage/'))) {
      const format = row.file.split('/')[1] as CoverageFormat;
      const decided = COVERAGE_DECISIONS[row.file];
      const verdict = decided?.verdict ?? verdictOfNote(row.note);
      it(`[S1.4.3-13] ${row.file} (${format}): ${verdict === 'accept' ? '201 with figures computed independently' : '400'}`, async () => {
        expect(verdict, `no verdict for ${row.file}`).to.not.equal(undefined);
        const body = readCorpus(row.file);
        const r = await coverage(await source(), body, format);
        if (verdict === 'refuse') {
          expect(r.status, r.text).to.equal(400);
          if (decided?.pattern) expect(r.body.detail).to.match(decided.pattern);
          return;
        }
        expect(r.status, r.text).to.equal(201);
        const text = body.toString('utf8');
        let lines: [number | null, number | null];
        let branches: [number | null, number | null];
        let packages: number | null = null;
        if (format === 'jacoco') {
          const t = jacocoTotals(text);
          lines = t.lines!;
          branches = t.branches ? pair(...t.branches) : [null, null];
          packages = (text.match(/<package\b/g) ?? []).length;
        } else if (format === 'cobertura') {
          const t = coberturaTotals(text);
          lines = [t.lc, t.lt];
          branches = pair(t.bc, t.bt);
          packages = (text.match(/<package\b/g) ?? []).length;
        } else {
          const t = lcovTotals(text);
          lines = [t.lc, t.lt];
          branches = pair(t.bc, t.bt);
          packages = t.dirs;
        }
        expect([r.body.linesCovered, r.body.linesTotal]).to.deep.equal(lines);
        expect([r.body.branchesCovered, r.body.branchesTotal]).to.deep.equal(branches);
        expect(r.body.sha256).to.equal(sha(body));
        const one = await v.request('GET', `/repositories/${c!.repositoryId}/coverage-imports/${r.body.id}`, { apiKey: c!.key });
        if (r.body.packagesState === 'kept') expect(one.body.packages).to.have.length(packages);
        else expect(one.body.packages).to.equal(null);
      });
    }

    it('[S1.2.6-03] [S1.4.3-46] a real Cobertura report (coverlet) rewritten with its lines under methods only: 201 with the figures of its class lines, per package too', async () => {
      const original = readCorpus('coverage/cobertura/coverlet__csharp.cobertura.xml').toString('utf8');
      const rewritten = linesUnderMethodsOnly(original);
      expect(coberturaTotals(rewritten).lt).to.equal(0);
      const t = coberturaTotals(original);
      const before = await coverage(await source(), original, 'cobertura');
      const r = await coverage(await source(), rewritten, 'cobertura');
      expect(r.status, r.text).to.equal(201);
      expect([r.body.linesCovered, r.body.linesTotal, r.body.branchesCovered, r.body.branchesTotal]).to.deep.equal([t.lc, t.lt, ...pair(t.bc, t.bt)]);
      expect(r.body.packagesState).to.equal('kept');
      const packages = async (id: number) => (await v.request('GET', `/repositories/${c!.repositoryId}/coverage-imports/${id}`, { apiKey: c!.key })).body.packages;
      expect(await packages(r.body.id)).to.deep.equal(await packages(before.body.id));
    });

    for (const row of rows.filter((r) => r.file.startsWith('junit/'))) {
      const decided = JUNIT_DECISIONS[row.file];
      const verdict = decided?.verdict ?? verdictOfNote(row.note);
      it(`[S1.4.3-09] ${row.file}: ${verdict === 'accept' ? '201 with figures counted independently' : '400'}`, async () => {
        expect(verdict, `no verdict for ${row.file}`).to.not.equal(undefined);
        const body = readCorpus(row.file);
        const r = await testReport(await source(), body);
        if (verdict === 'refuse') {
          expect(r.status, r.text).to.equal(400);
          if (decided?.pattern) expect(r.body.detail).to.match(decided.pattern);
          return;
        }
        expect(r.status, r.text).to.equal(201);
        expect(r.body).to.deep.include({ documents: 1, sha256: sha(body), ...(RETRIES[row.file] ?? junitCounts(body.toString('utf8'))) });
        const one = await v.request('GET', `/repositories/${c!.repositoryId}/test-report-imports/${r.body.id}`, { apiKey: c!.key });
        expect(one.body.suiteTotals).to.have.length(r.body.suites);
        expect(one.body.suiteTotals.reduce((n: number, x: Json) => n + x.tests, 0)).to.equal(r.body.tests);
      });
    }

    it('[S1.4.3-09] the whole JUnit corpus\'s acceptable documents in one zip: the sums of the single imports', async () => {
      const accepted = rows.filter((r) => r.file.startsWith('junit/') && (JUNIT_DECISIONS[r.file]?.verdict ?? verdictOfNote(r.note)) === 'accept');
      const expected = { tests: 0, failures: 0, errors: 0, skipped: 0 };
      for (const row of accepted) {
        const counts = { ...junitCounts(readCorpus(row.file).toString('utf8')), ...(RETRIES[row.file] ?? {}) };
        for (const k of Object.keys(expected) as Array<keyof typeof expected>) expected[k] += counts[k] as number;
      }
      const zip = await makeZip(accepted.map((r): [string, Buffer] => [r.file, readCorpus(r.file)]));
      const res = await testReport(await source(), zip, { contentType: 'application/zip' });
      expect(res.status, res.text).to.equal(201);
      expect(res.body).to.deep.include({ documents: accepted.length, ...expected });
    });

    for (const row of rows.filter((r) => r.file.startsWith('sbom/') || r.file.startsWith('scanners/syft/'))) {
      const decided = SBOM_DECISIONS[row.file];
      const verdict = decided?.verdict ?? verdictOfNote(row.note);
      it(`[S1.4.3-11] ${row.file}: ${verdict === 'accept' ? '201 with every component kept' : '400'}`, async () => {
        expect(verdict, `no verdict for ${row.file}`).to.not.equal(undefined);
        const body = readCorpus(row.file);
        const r = await sbom(await source(), body);
        if (verdict === 'refuse') {
          expect(r.status, r.text).to.equal(400);
          if (decided?.pattern) expect(r.body.detail).to.match(decided.pattern);
          if (row.file.endsWith('.xml')) expect((await sbom(c!, body, { contentType: 'application/vnd.cyclonedx+xml' })).status).to.equal(400);
          return;
        }
        expect(r.status, r.text).to.equal(201);
        const doc = JSON.parse(body.toString('utf8'));
        const names = componentNames(doc);
        expect(r.body).to.deep.equal({ id: r.body.id, components: names.length, specVersion: doc.specVersion, sha256: sha(body) });
        const stated = /(\d+) components/.exec(row.note);
        if (stated) expect(r.body.components).to.equal(Number(stated[1]));
        const one = await v.request('GET', `/repositories/${c!.repositoryId}/build-sbom-imports/${r.body.id}`, { apiKey: c!.key });
        expect(one.body.componentList.map((x: Json) => x.name)).to.deep.equal(names);
      });
    }
    if (rows.length === 0) it('has manifest rows to check', () => expect(rows).to.not.be.empty);
  });
});
