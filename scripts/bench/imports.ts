import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import * as zlib from 'node:zlib';
import winston from 'winston';
import * as yazl from 'yazl';
import { loadConfig } from '../../infrastructure/config/config';
import { buildContainer, prepare, servicesOf } from '../../infrastructure/container';
import { Database, openDatabase } from '../../infrastructure/db/database';
import { createApp } from '../../interfaces/http/app';
import { allRoutes } from '../../interfaces/http/routes';
import { benchDatabase, timed } from './support';

/**
 * npm run bench:imports — against PostgreSQL (VIGIL_BENCH_PG_URL), a real Vigil over HTTP on
 * loopback (the container as `npm start` builds it), one declared source for the repository:
 *   (a) a generated 30 MB SARIF log with 50,000 results: accepted, visible to GET /issues, its time
 *       and the peak resident memory of the process; then the same document again (re-import);
 *   (b) a 15 MB JaCoCo report;  (c) a 30 MB zip of 2,000 JUnit documents;
 *   (d) a CycloneDX build SBOM of 9,000 components.
 * Each figure is printed with its ratio to a floor measured in the same run: reading the same
 * bytes once (JSON.parse of the document; for XML, of the same text as a JSON string; for the zip,
 * inflating its entries first) plus one bulk insert of as many rows as the import writes.
 * Targets (issue): (a) < 10 s, RSS < 600 MB, re-import < 5 s; (b), (c) < 5 s; (d) < 2 s.
 * Vigil runs in a child process of its own (this file, in server mode), so that its resident
 * memory is measured apart from the client that builds and sends the documents.
 */
const MB = 1024 * 1024;
// A full collection before each measurement, so that the garbage of building the inputs and of
// the floor is not counted as the import's memory.
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;
const ADMIN = { username: 'bench-admin', password: 'bench-password-long-enough' };

type Answer = { status: number; body: any; headers: Headers };

type ServerMessage = { port: number } | { done: string; peak?: { rss: number; heap: number; buffers: number; start: number } };

/** Server mode: a Vigil on the bench database, answering the parent's memory requests. */
async function serve(connection: Record<string, unknown>): Promise<void> {
  const db = openDatabase({ engine: 'postgres', ...(connection as { host: string; port: number; user: string; password: string; database: string }), params: {} }, { poolMax: 20 });
  const config = loadConfig({
    VIGIL_BOOTSTRAP_USERNAME: ADMIN.username, VIGIL_BOOTSTRAP_PASSWORD: ADMIN.password, VIGIL_PORT: '0', VIGIL_LOG_LEVEL: 'error', VIGIL_DATA_DIR: '/nonexistent',
    VIGIL_API_KEY_REQUESTS_PER_MINUTE: '100000',
  });
  const logger = winston.createLogger({ level: 'error', transports: [new winston.transports.Console()] });
  const services = servicesOf(buildContainer(config, { database: db, logger }));
  await prepare(services);
  services.projections.start();
  const { app } = createApp(config, services, allRoutes(services));
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let memory: PeakRss | null = null;
  process.on('message', async (m: { cmd: string }) => {
    if (m.cmd === 'peak-start') { collect(); memory = new PeakRss(); }
    if (m.cmd === 'gc') collect();
    if (m.cmd === 'peak-stop' && memory) {
      const rss = memory.stop();
      process.send!({ done: m.cmd, peak: { rss, heap: memory.heap, buffers: memory.buffers, start: memory.start } } satisfies ServerMessage);
    } else if (m.cmd !== 'stop') {
      process.send!({ done: m.cmd } satisfies ServerMessage);
    }
    if (m.cmd === 'stop') {
      server.closeAllConnections?.();
      server.close();
      await services.projections.stop();
      await db.close();
      process.exit(0);
    }
  });
  process.send!({ port: (server.address() as AddressInfo).port } satisfies ServerMessage);
}

/** Sends a command to the Vigil process and waits for its answer (stop is not answered). */
function ask(child: ChildProcess, cmd: 'gc' | 'peak-start' | 'peak-stop' | 'stop'): Promise<any> {
  return new Promise((resolve) => {
    if (cmd === 'stop') { child.send({ cmd }); resolve(undefined); return; }
    const on = (m: ServerMessage) => { if ('done' in m && m.done === cmd) { child.off('message', on); resolve(m.peak); } };
    child.on('message', on);
    child.send({ cmd });
  });
}

async function main(): Promise<void> {
  const { db, drop } = await benchDatabase();
  const connection = (db.knex.client as { config: { connection: Record<string, unknown> } }).config.connection;
  const child = fork(__filename, ['--serve', JSON.stringify(connection)], { stdio: 'inherit' });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: ServerMessage) => ('port' in m ? resolve(m.port) : reject(new Error('no port'))));
    child.once('exit', (code) => reject(new Error(`the Vigil process exited (${code})`)));
  });
  const base = `http://127.0.0.1:${port}/api/v1`;
  const request = async (method: string, path: string, o: { token?: string; apiKey?: string; json?: unknown; raw?: Buffer; type?: string } = {}): Promise<Answer> => {
    const headers: Record<string, string> = {};
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.apiKey) headers['x-api-key'] = o.apiKey;
    let body: string | Buffer | undefined;
    if (o.raw) { body = o.raw; headers['content-type'] = o.type ?? 'application/octet-stream'; }
    else if (o.json !== undefined) { body = JSON.stringify(o.json); headers['content-type'] = 'application/json'; }
    const res = await fetch(`${base}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  const ok = (r: Answer, status: number, what: string): Answer => {
    if (r.status !== status) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body).slice(0, 500)}`);
    return r;
  };

  try {
    // One repository, one key, one source declaring every kind.
    const admin = ok(await request('POST', '/auth/sign-in', { json: ADMIN }), 200, 'sign-in').body.token as string;
    const repositoryId = ok(await request('POST', '/repositories', { token: admin, json: { url: 'https://git.example/bench/imports' } }), 201, 'repository').body.id as number;
    const key = ok(await request('POST', '/api-keys', { token: admin, json: { name: 'bench', scopes: ['sarif_import', 'report_import', 'read'] } }), 201, 'key').body;
    ok(await request('POST', '/accounts', { token: admin, json: { username: 'bench-governor', displayName: 'Governor', password: ADMIN.password, roles: ['platform_governor'] } }), 201, 'governor');
    const governor = ok(await request('POST', '/auth/sign-in', { json: { username: 'bench-governor', password: ADMIN.password } }), 200, 'governor sign-in').body.token as string;
    ok(await request('POST', '/sarif-sources', { token: governor, json: {
      slug: 'bench', name: 'Bench', api_key_id: key.id, repository_id: repositoryId, kinds: ['sarif', 'coverage', 'test_report', 'sbom'], tools: ['Bench'],
    } }), 201, 'source');
    const upload = (path: string, body: Buffer, type: string) => request('POST', `/repositories/${repositoryId}/${path}`, { apiKey: key.key, raw: body, type });

    const rows: Row[] = [];
    let rssMissed = false;
    const report = (name: string, ms: number, floor: number, target: number, extra = '') => {
      rows.push({ name, ms, floor, target });
      console.log(`${name}: ${fmt(ms)} (target < ${fmt(target)}: ${ms < target ? 'met' : 'MISSED'}), floor ${fmt(floor)}, ratio ${(ms / floor).toFixed(1)}x${extra ? `; ${extra}` : ''}`);
    };

    // (a) SARIF: 30 MB, 50,000 results.
    {
      const body = sarifDocument(50_000);
      const floor = await floorOf(db, () => JSON.parse(body.toString('utf8')), 50_000);
      await ask(child, 'peak-start');
      const first = await timed(() => upload('sarif-imports', body, 'application/sarif+json'));
      const memory = await ask(child, 'peak-stop');
      const peak = memory.rss as number;
      rssMissed = peak >= 600 * MB;
      ok(first.value, 201, 'SARIF import');
      const visible = await timed(() => countIssues(request, admin, repositoryId));
      if (visible.value !== 50_000) throw new Error(`GET /issues shows ${visible.value} issues, not 50,000`);
      report(`(a) SARIF ${size(body)}, 50,000 results: import`, first.ms, floor, 10_000, `created ${first.value.body.createdCount}; GET /issues pages all 50,000 in ${fmt(visible.ms)}`);
      console.log(`(a) peak RSS of the Vigil process during the import: ${Math.round(peak / MB)} MB (target < 600 MB: ${peak < 600 * MB ? 'met' : 'MISSED'}); before: ${Math.round(memory.start / MB)} MB; peak V8 heap ${Math.round(memory.heap / MB)} MB, buffers ${Math.round(memory.buffers / MB)} MB`);
      await ask(child, 'gc');
      const again = await timed(() => upload('sarif-imports', body, 'application/sarif+json'));
      ok(again.value, 201, 'SARIF re-import');
      if (again.value.body.createdCount !== 0 || again.value.body.resolvedCount !== 0) throw new Error(`re-import changed the backlog: ${JSON.stringify(again.value.body)}`);
      report('(a) the same document again (re-import)', again.ms, floor, 5_000, 'created 0, resolved 0');
    }

    // (b) JaCoCo: 15 MB.
    {
      const { body, packages } = jacocoDocument(15 * MB);
      const floor = await floorOf(db, () => JSON.parse(JSON.stringify(body.toString('utf8'))), 1);
      await ask(child, 'gc');
      const r = await timed(() => upload('coverage-imports?format=jacoco&commit=0123456789abcdef0123456789abcdef01234567&branch=main', body, 'application/xml'));
      ok(r.value, 201, 'JaCoCo import');
      report(`(b) JaCoCo ${size(body)}, ${packages.toLocaleString('en-US')} packages`, r.ms, floor, 5_000, `linesTotal ${r.value.body.linesTotal}, packagesState ${r.value.body.packagesState}`);
    }

    // (c) JUnit: a 30 MB zip of 2,000 documents.
    {
      const documents = junitDocuments(2000);
      const zip = await makeZip(documents);
      const deflated = documents.map(([, data]) => zlib.deflateRawSync(data));
      const floor = await floorOf(db, () => JSON.parse(JSON.stringify(Buffer.concat(deflated.map((d) => zlib.inflateRawSync(d))).toString('utf8'))), 1);
      await ask(child, 'gc');
      const r = await timed(() => upload('test-report-imports?branch=main', zip, 'application/zip'));
      ok(r.value, 201, 'JUnit import');
      report(`(c) JUnit zip ${size(zip)}, 2,000 documents`, r.ms, floor, 5_000, `tests ${r.value.body.tests}, failures ${r.value.body.failures}`);
    }

    // (d) CycloneDX: 9,000 components.
    {
      const body = cyclonedxDocument(9000);
      const floor = await floorOf(db, () => JSON.parse(body.toString('utf8')), 9000);
      await ask(child, 'gc');
      const r = await timed(() => upload('build-sbom-imports?branch=main', body, 'application/vnd.cyclonedx+json'));
      ok(r.value, 201, 'SBOM import');
      report(`(d) CycloneDX ${size(body)}, 9,000 components`, r.ms, floor, 2_000, `components ${r.value.body.components}`);
    }
    const missed = [...rows.filter((r) => r.ms >= r.target).map((r) => r.name), ...(rssMissed ? ['(a) peak RSS'] : [])];
    console.log(missed.length ? `MISSED: ${missed.join('; ')}` : 'Every target met.');
  } finally {
    await ask(child, 'stop');
    await new Promise((resolve) => child.once('exit', resolve));
    await drop();
  }
}

interface Row { name: string; ms: number; floor: number; target: number }

const fmt = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const size = (b: Buffer): string => `${(b.length / MB).toFixed(1)} MB`;

/** Peak process RSS (and, to tell where it went, peak V8 heap and buffers), sampled every 10 ms until stopped. */
class PeakRss {
  readonly start = process.memoryUsage().rss;
  private peak = this.start;
  heap = 0;
  buffers = 0;
  private readonly timer = setInterval(() => this.sample(), 10);
  private sample(): void {
    const m = process.memoryUsage();
    this.peak = Math.max(this.peak, m.rss);
    this.heap = Math.max(this.heap, m.heapUsed);
    this.buffers = Math.max(this.buffers, m.arrayBuffers);
  }
  stop(): number {
    clearInterval(this.timer);
    this.sample();
    return this.peak;
  }
}

/** The floor: reading the document once, plus one bulk insert of `count` rows (PostgreSQL, unnest). */
async function floorOf(db: Database, read: () => unknown, count: number): Promise<number> {
  await db.knex.raw('CREATE TABLE IF NOT EXISTS bench_floor (id integer PRIMARY KEY, issue_key varchar(64) NOT NULL, data text NOT NULL)');
  await db.knex.raw('TRUNCATE bench_floor');
  const ids = Array.from({ length: count }, (_, i) => i + 1);
  const keys = ids.map(() => randomBytes(32).toString('hex'));
  const data = ids.map((i) => `{"title":"row ${i}","severity":"high","path":"src/m${i % 97}/File${i}.java"}`);
  const { ms } = await timed(async () => {
    read();
    await db.knex.raw('INSERT INTO bench_floor (id, issue_key, data) SELECT * FROM unnest(?::int[], ?::varchar[], ?::text[])', [ids, keys, data] as never);
  });
  return ms;
}

async function countIssues(request: (m: string, p: string, o: { token: string }) => Promise<Answer>, token: string, repositoryId: number): Promise<number> {
  let count = 0;
  let after = 0;
  for (;;) {
    const page = await request('GET', `/issues?repository_id=${repositoryId}&limit=1000&after=${after}`, { token });
    if (page.status !== 200) throw new Error(`GET /issues: ${page.status}`);
    count += page.body.length;
    if (!page.headers.get('link') || page.body.length === 0) return count;
    after = page.body[page.body.length - 1].id;
  }
}

/** 50,000 results over 400 rules, each its own file: 50,000 issues (about 30 MB, under the 32 MB limit). */
function sarifDocument(results: number): Buffer {
  const rules = Array.from({ length: 400 }, (_, i) => ({ id: `R${i}`, properties: { 'security-severity': String((i % 100) / 10) } }));
  const list = Array.from({ length: results }, (_, i) => ({
    ruleId: `R${i % 400}`,
    message: { text: `Finding ${i}: ${'lorem ipsum '.repeat(32)}` },
    locations: [{ physicalLocation: { artifactLocation: { uri: `src/m${i % 97}/File${i}.java`, uriBaseId: '%SRCROOT%' }, region: { startLine: (i % 900) + 1 } } }],
    partialFingerprints: { primaryLocationLineHash: `${i.toString(16)}:1` },
  }));
  return Buffer.from(JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name: 'Bench', version: '1.0', rules } }, results: list }] }));
}

function jacocoDocument(bytes: number): { body: Buffer; packages: number } {
  const parts: string[] = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?><!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd"><report name="bench">'];
  let total = 0;
  let packages = 0;
  while (total < bytes) {
    const p = `<package name="org/bench/p${packages}"><class name="org/bench/p${packages}/C" sourcefilename="C.java"><method name="m" desc="()V" line="3"><counter type="INSTRUCTION" missed="1" covered="4"/><counter type="LINE" missed="1" covered="2"/></method><counter type="LINE" missed="1" covered="2"/></class><sourcefile name="C.java"><line nr="3" mi="0" ci="3" mb="0" cb="0"/><line nr="4" mi="0" ci="2" mb="1" cb="1"/><line nr="5" mi="1" ci="0" mb="0" cb="0"/><counter type="LINE" missed="1" covered="2"/></sourcefile><counter type="LINE" missed="1" covered="2"/><counter type="BRANCH" missed="1" covered="1"/></package>`;
    parts.push(p);
    total += p.length;
    packages++;
  }
  parts.push(`<counter type="LINE" missed="${packages}" covered="${2 * packages}"/><counter type="BRANCH" missed="${packages}" covered="${packages}"/></report>`);
  return { body: Buffer.from(parts.join('')), packages };
}

/** 2,000 surefire documents of 10 cases with incompressible output: a zip of about 30 MB. */
function junitDocuments(count: number): Array<[string, Buffer]> {
  return Array.from({ length: count }, (_, d): [string, Buffer] => {
    const cases = Array.from({ length: 10 }, (_, k) => `<testcase classname="bench.S${d}" name="t${k}" time="0.01">${k === 0 ? '<failure message="boom"/>' : ''}<system-out>${randomBytes(1530).toString('base64')}</system-out></testcase>`);
    return [`surefire-reports/TEST-bench.S${d}.xml`, Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><testsuite name="bench.S${d}" tests="10">${cases.join('')}</testsuite>`)];
  });
}

function makeZip(entries: Array<[string, Buffer]>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const zip = new yazl.ZipFile();
    for (const [name, data] of entries) zip.addBuffer(data, name);
    zip.end();
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

function cyclonedxDocument(count: number): Buffer {
  const components = Array.from({ length: count }, (_, i) => ({
    type: 'library', 'bom-ref': `pkg:maven/org.bench/lib${i}@1.${i}.0`, group: 'org.bench', name: `lib${i}`, version: `1.${i}.0`,
    purl: `pkg:maven/org.bench/lib${i}@1.${i}.0`, licenses: [{ license: { id: 'Apache-2.0' } }], hashes: [{ alg: 'SHA-256', content: randomBytes(32).toString('hex') }],
  }));
  return Buffer.from(JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.6', serialNumber: 'urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79', version: 1,
    metadata: { timestamp: '2025-01-01T00:00:00Z', component: { type: 'application', name: 'bench' } },
    components, dependencies: components.map((c, i) => ({ ref: c['bom-ref'], dependsOn: i + 1 < components.length ? [components[i + 1]['bom-ref']] : [] })),
  }));
}

if (process.argv[2] === '--serve') serve(JSON.parse(process.argv[3])).catch((e) => { console.error(e); process.exit(1); });
else main().catch((e) => { console.error(e); process.exit(1); });
