import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { createServer } from 'node:net';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import * as yazl from 'yazl';
import { Database } from '../../infrastructure/db/database';
import type { ProbeMessage, ProbePeaks } from './memory-probe';
import { benchDatabase, timed } from './support';

/**
 * npm run bench:imports — against PostgreSQL (VIGIL_BENCH_PG_URL), a real Vigil over HTTP on
 * loopback, one declared source for the repository:
 *   (a) a generated 30 MB SARIF log with 50,000 results: accepted, visible to GET /issues, its time
 *       and the peak resident memory of the process; then the same document again (re-import);
 *   (b) a 15 MB JaCoCo report;  (c) a 30 MB zip of 2,000 JUnit documents;
 *   (d) a CycloneDX build SBOM of 9,000 components.
 * Each figure is printed with its ratio to a floor measured in the same run: reading the same
 * bytes once (JSON.parse of the document; for XML, of the same text as a JSON string; for the zip,
 * inflating its entries first) plus one bulk insert of as many rows as the import writes.
 * Targets (issue): (a) < 10 s, RSS < 600 MB, re-import < 5 s; (b), (c) < 5 s; (d) < 2 s.
 * Vigil runs as `npm start` runs it, in a process of its own (so that its memory is measured apart
 * from the client that builds and sends the documents): `npm run build`, then the compiled server
 * under plain node with the flags of package.json's start script, configured through its
 * environment. The one addition is a preloaded probe (memory-probe.ts) that samples the split of
 * the peak into V8 heap and buffers; nothing forces a collection in that process.
 */
const MB = 1024 * 1024;
const ROOT = path.resolve(__dirname, '../..');
const ADMIN = { username: 'bench-admin', password: 'bench-password-long-enough' };

type Answer = { status: number; body: any; headers: Headers };

/** The node flags and entry of package.json's start script (`npm run build && node [flags] entry`). */
function startCommand(): { flags: string[]; entry: string } {
  const script = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start;
  const match = /&&\s*node\s+((?:--\S+\s+)*)(\S+)\s*$/.exec(script);
  if (!match) throw new Error(`package.json's start script "${script}" is not "npm run build && node [flags] <entry>"; teach bench:imports how Vigil starts`);
  return { flags: match[1].split(/\s+/).filter(Boolean), entry: match[2] };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Vigil started as `npm start` starts it, on the bench database; answers its base URL once it listens. */
async function startVigil(connection: { host: string; port: number; user: string; password?: string; database: string }): Promise<{ child: ChildProcess; base: string }> {
  const built = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('npm run build failed: npm start would not start either');
  const { flags, entry } = startCommand();
  const port = await freePort();
  const child = fork(path.join(ROOT, entry), [], {
    cwd: ROOT,
    execArgv: [...flags, '--require', path.join(ROOT, 'dist/scripts/bench/memory-probe.js')],
    stdio: 'inherit',
    env: {
      ...process.env,
      VIGIL_DB_URL: `postgres://${encodeURIComponent(connection.user)}@${connection.host}:${connection.port}/${connection.database}`,
      VIGIL_DB_PASSWORD: connection.password ?? '',
      VIGIL_HOST: '127.0.0.1', VIGIL_PORT: String(port), VIGIL_LOG_LEVEL: 'error',
      VIGIL_BOOTSTRAP_USERNAME: ADMIN.username, VIGIL_BOOTSTRAP_PASSWORD: ADMIN.password,
      VIGIL_API_KEY_REQUESTS_PER_MINUTE: '100000',
      VIGIL_FEED_INTERVAL: '0s', // no downloads of KEV and EPSS from the bench
    },
  });
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`the Vigil process exited (${code})`))));
  exited.catch(() => undefined);
  const base = `http://127.0.0.1:${port}/api/v1`;
  const deadline = Date.now() + 120_000;
  try {
    for (;;) {
      const up = await Promise.race([fetch(`${base}/health`).then(() => true, () => false), exited]);
      if (up) return { child, base };
      if (Date.now() > deadline) throw new Error('Vigil did not listen within 120 s');
      await new Promise((r) => setTimeout(r, 250));
    }
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGTERM');
    throw error;
  }
}

/** Peak memory of the Vigil process between start() and stop(). */
class PeakMemory {
  constructor(private readonly child: ChildProcess) {}

  /** Resets the kernel's high-water mark of the process (Linux), then starts the probe's sampling. */
  async start(): Promise<void> {
    try {
      fs.writeFileSync(`/proc/${this.child.pid}/clear_refs`, '5');
    } catch { /* not Linux: the sampled peak stands in */ }
    await this.ask('peak-start');
  }

  /** The peak RSS (the kernel's high-water mark where there is one) and the probe's sampled peaks. */
  async stop(): Promise<ProbePeaks & { sampledRss: number }> {
    const peaks = (await this.ask('peak-stop'))!;
    let rss = peaks.rss;
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${this.child.pid}/status`, 'utf8'));
      if (hwm) rss = Math.max(rss, Number(hwm[1]) * 1024);
    } catch { /* not Linux */ }
    return { ...peaks, rss, sampledRss: peaks.rss };
  }

  private ask(probe: 'peak-start' | 'peak-stop'): Promise<ProbePeaks | undefined> {
    return new Promise((resolve) => {
      const on = (m: ProbeMessage) => { if (m?.probe === probe) { this.child.off('message', on); resolve(m.peaks); } };
      this.child.on('message', on);
      this.child.send({ probe });
    });
  }
}

async function main(): Promise<void> {
  const { db, drop } = await benchDatabase();
  const connection = (db.knex.client as { config: { connection: { host: string; port: number; user: string; password?: string; database: string } } }).config.connection;
  let child: ChildProcess | null = null;
  try {
    const vigil = await startVigil(connection);
    child = vigil.child;
    await measure(db, vigil.child, vigil.base);
  } finally {
    if (child && child.exitCode === null) {
      const gone = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    }
    await drop();
  }
}

async function measure(db: Database, child: ChildProcess, base: string): Promise<void> {
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

  {
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
      const probe = new PeakMemory(child);
      await probe.start();
      const first = await timed(() => upload('sarif-imports', body, 'application/sarif+json'));
      const memory = await probe.stop();
      const peak = memory.rss;
      rssMissed = peak >= 600 * MB;
      ok(first.value, 201, 'SARIF import');
      const visible = await timed(() => countIssues(request, admin, repositoryId));
      if (visible.value !== 50_000) throw new Error(`GET /issues shows ${visible.value} issues, not 50,000`);
      report(`(a) SARIF ${size(body)}, 50,000 results: import`, first.ms, floor, 10_000, `created ${first.value.body.createdCount}; GET /issues pages all 50,000 in ${fmt(visible.ms)}`);
      console.log(`(a) peak RSS of the Vigil process during the import: ${Math.round(peak / MB)} MB (target < 600 MB: ${peak < 600 * MB ? 'met' : 'MISSED'}); before: ${Math.round(memory.start / MB)} MB; sampled every 10 ms: RSS ${Math.round(memory.sampledRss / MB)} MB, V8 heap ${Math.round(memory.heap / MB)} MB, buffers ${Math.round(memory.buffers / MB)} MB`);
      const again = await timed(() => upload('sarif-imports', body, 'application/sarif+json'));
      ok(again.value, 201, 'SARIF re-import');
      if (again.value.body.createdCount !== 0 || again.value.body.resolvedCount !== 0) throw new Error(`re-import changed the backlog: ${JSON.stringify(again.value.body)}`);
      report('(a) the same document again (re-import)', again.ms, floor, 5_000, 'created 0, resolved 0');
    }

    // (b) JaCoCo: 15 MB.
    {
      const { body, packages } = jacocoDocument(15 * MB);
      const floor = await floorOf(db, () => JSON.parse(JSON.stringify(body.toString('utf8'))), 1);
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
      const r = await timed(() => upload('test-report-imports?branch=main', zip, 'application/zip'));
      ok(r.value, 201, 'JUnit import');
      report(`(c) JUnit zip ${size(zip)}, 2,000 documents`, r.ms, floor, 5_000, `tests ${r.value.body.tests}, failures ${r.value.body.failures}`);
    }

    // (d) CycloneDX: 9,000 components.
    {
      const body = cyclonedxDocument(9000);
      const floor = await floorOf(db, () => JSON.parse(body.toString('utf8')), 9000);
      const r = await timed(() => upload('build-sbom-imports?branch=main', body, 'application/vnd.cyclonedx+json'));
      ok(r.value, 201, 'SBOM import');
      report(`(d) CycloneDX ${size(body)}, 9,000 components`, r.ms, floor, 2_000, `components ${r.value.body.components}`);
    }
    const missed = [...rows.filter((r) => r.ms >= r.target).map((r) => r.name), ...(rssMissed ? ['(a) peak RSS'] : [])];
    console.log(missed.length ? `MISSED: ${missed.join('; ')}` : 'Every target met.');
  }
}

interface Row { name: string; ms: number; floor: number; target: number }

const fmt = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const size = (b: Buffer): string => `${(b.length / MB).toFixed(1)} MB`;

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

main().catch((e) => { console.error(e); process.exit(1); });
