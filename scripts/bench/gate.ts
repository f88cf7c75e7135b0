import * as http from 'node:http';
import { Worker } from 'node:worker_threads';
import { randomUUID } from 'node:crypto';
import { AddressInfo } from 'node:net';
import winston from 'winston';
import { scanOutcomeStream } from '../../application/gate/observation-source';
import { NewEvent, StreamAppend } from '../../application/ports/event-store';
import { Finding, issueKey, issueStream, IssueType } from '../../domain/backlog/issue';
import { Severity } from '../../domain/gate/severity';
import { targetDecider } from '../../domain/targets';
import { loadConfig } from '../../infrastructure/config/config';
import { buildContainer, prepare, servicesOf } from '../../infrastructure/container';
import { Database } from '../../infrastructure/db/database';
import { SqlEventStore } from '../../infrastructure/eventstore/sql-event-store';
import { createApp } from '../../interfaces/http/app';
import { allRoutes } from '../../interfaces/http/routes';
import { allProjections } from '../../projections';
import { ProjectionRunner } from '../../projections/engine/projection-runner';
import { benchDatabase, rate, timed } from './support';

/**
 * npm run bench:gate — against PostgreSQL (VIGIL_BENCH_PG_URL):
 *   builds an estate of BENCH_TARGETS repositories and BENCH_ISSUES open issues (IssueDetected
 *   events appended in bulk, then projected as at start), one hot repository holding
 *   BENCH_HOT_ISSUES of them;
 *   asks POST /gate about the hot repository over real HTTP, BENCH_CONCURRENCY callers at once,
 *   BENCH_CALLS calls: prints p50 / p99 (the issue's figure: p50 < 50 ms for 20,000 open issues and
 *   32 callers);
 *   times a full projection rebuild of the estate.
 * Prints figures, asserts nothing. Defaults are the issue's figures (5,000 targets, 1,000,000 issues).
 */
const TARGETS = Number(process.env.BENCH_TARGETS ?? 5_000);
const ISSUES = Number(process.env.BENCH_ISSUES ?? 1_000_000);
const HOT = Number(process.env.BENCH_HOT_ISSUES ?? 20_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const CALLS = Number(process.env.BENCH_CALLS ?? 1_000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 64);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 50);
const WRITERS = 4;
const STREAMS_PER_APPEND = 1_000;

const AT = '2026-01-01T00:00:00.000Z';
const meta = { actor: 1, address: '127.0.0.1', userAgent: 'bench', correlationId: null, at: AT };

/** Severity mix of the backlog, per 100 issues: critical, high, medium (the rest low). BENCH_MIX=2,10,38 by default. */
const [CRITICAL, HIGH, MEDIUM] = (process.env.BENCH_MIX ?? '2,10,38').split(',').map(Number);
function severityOf(i: number): Severity {
  const p = i % 100;
  return p < CRITICAL ? 'critical' : p < CRITICAL + HIGH ? 'high' : p < CRITICAL + HIGH + MEDIUM ? 'medium' : 'low';
}

/** Mostly scanner findings; 5 % SAST, 5 % imported SARIF (left out of a default gate). */
function typeOf(i: number): { type: IssueType; toolKey: string } {
  const p = (i * 7) % 100;
  return p < 5 ? { type: 'imported', toolKey: 'import:ci/semgrep' } : p < 10 ? { type: 'sast', toolKey: 'scanner:sast' } : { type: 'vulnerability', toolKey: 'scanner:vulnerability' };
}

function issueDetected(id: number, targetId: number, below = false): { stream: string; event: NewEvent } {
  const { type, toolKey } = typeOf(id);
  const finding: Finding = {
    targetKind: 'repository', targetId, toolKey, ruleId: `CVE-2025-${100000 + id}`, path: type === 'vulnerability' ? `pkg:npm/package-${id % 5000}@1.${id % 40}.0` : `src/module-${id % 300}/file-${id}.ts`,
    type, severity: below ? (id % 2 ? 'medium' : 'low') : severityOf(id), line: type === 'vulnerability' ? null : (id % 900) + 1, title: `Finding ${id}`,
    identifier: `CVE-2025-${100000 + id}`, packageName: type === 'vulnerability' ? `package-${id % 5000}` : null, packageVersion: type === 'vulnerability' ? `1.${id % 40}.0` : null,
    fixable: id % 5 < 3,
  };
  const key = issueKey(finding);
  return {
    stream: issueStream(key),
    event: { id: randomUUID(), type: 'IssueDetected', metadata: { ...meta, actor: null }, data: { ...finding, id, key, provenance: { origin: type === 'imported' ? 'import' : 'scan', source: type === 'imported' ? 'ci' : null, toolName: 'bench', toolVersion: '1.0', recordId: 1 }, at: AT } },
  };
}

function repositoryRegistered(id: number): { stream: string; event: NewEvent } {
  const [e] = targetDecider.decide({ type: 'RegisterRepository', id, actor: '1', now: new Date(AT), name: undefined, projectId: null, url: `https://git.example/estate/repo-${id}`, branch: undefined, subPath: undefined } as never, targetDecider.initialState());
  return { stream: `repository-${id}`, event: { id: randomUUID(), type: e.type, data: e.data, metadata: meta } };
}

/** Appends one-event streams in commits of STREAMS_PER_APPEND, WRITERS at a time. */
async function appendStreams(store: SqlEventStore, count: number, make: (i: number) => { stream: string; event: NewEvent }): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: WRITERS }, async () => {
    for (;;) {
      const start = next;
      if (start >= count) return;
      next = Math.min(count, start + STREAMS_PER_APPEND);
      const batch: StreamAppend[] = [];
      for (let i = start; i < next; i++) {
        const { stream, event } = make(i);
        batch.push({ stream, events: [event], expectedRevision: 'no_stream' });
      }
      await store.appendMany(batch);
    }
  }));
}

/**
 * The callers run in a worker thread (plain JavaScript, global fetch with keep-alive), so that reading
 * the answers does not take turns with Vigil on its event loop. Answers each call's latency in ms.
 */
const LOAD_WORKER = `
const { parentPort, workerData: w } = require('node:worker_threads');
(async () => {
  const latencies = [];
  let left = w.calls;
  await Promise.all(Array.from({ length: w.callers }, async () => {
    while (left > 0) {
      left--;
      const started = process.hrtime.bigint();
      const res = await fetch(w.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + w.key }, body: w.body });
      const text = await res.text();
      if (res.status !== 200) throw new Error('POST /gate answered ' + res.status + ': ' + text.slice(0, 300));
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  }));
  parentPort.postMessage(latencies);
})().catch((e) => { throw e; });
`;

function load(workerData: { url: string; key: string; body: string; calls: number; callers: number }): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(LOAD_WORKER, { eval: true, workerData });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

/** A completed scan: the scans context's events when its read model exists, else the gate's interim outcome stream. */
async function completedScan(db: Database, scanId: number, targetId: number): Promise<{ stream: string; events: Array<{ type: string; data: unknown }>; expectedRevision: 'no_stream' }> {
  if (!(await db.knex.schema.hasTable('scans'))) return { stream: scanOutcomeStream('repository', targetId), events: [{ type: 'ScanCompleted', data: {} }], expectedRevision: 'no_stream' };
  const of = { id: scanId, targetKind: 'repository', targetId };
  await db.knex('id_sequences').insert({ name: 'scan', next_value: scanId }).onConflict('name').merge();
  return {
    stream: `scan-${of.id}`, expectedRevision: 'no_stream', events: [
      { type: 'ScanRequested', data: { ...of, trigger: 'manual', requiresCredential: false, requestedBy: null, requestedAt: AT } },
      { type: 'ScanClaimed', data: { ...of, attempt: 1, worker: 'bench', claimedAt: AT, leaseExpiresAt: AT } },
      { type: 'ScanCompleted', data: { ...of, attempt: 1, worker: 'bench', completedAt: AT, duration: 'PT1S', steps: {}, detectedLanguages: null, createdCount: 0, resolvedCount: 0, reopenedCount: 0, disallowedLicences: [] } },
    ],
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main(): Promise<void> {
  const { db, drop } = await benchDatabase(CONCURRENCY + 16);
  const store = new SqlEventStore(db);
  let server: http.Server | null = null;
  let services: ReturnType<typeof servicesOf> | null = null;
  try {
    // 1. The estate, as events.
    const hotTarget = 1;
    const cleanTarget = 2;
    const others = Math.max(1, TARGETS - 2);
    if (ISSUES < 2 * HOT || TARGETS < 3) throw new Error('BENCH_ISSUES must be at least twice BENCH_HOT_ISSUES, BENCH_TARGETS at least 3');
    const built = await timed(async () => {
      await appendStreams(store, TARGETS, (i) => repositoryRegistered(i + 1));
      // Issue ids 1..ISSUES: HOT on the hot repository, HOT (medium and low only) on the clean one, the rest spread over the others.
      await appendStreams(store, ISSUES, (i) => (i < HOT ? issueDetected(i + 1, hotTarget) : i < 2 * HOT ? issueDetected(i + 1, cleanTarget, true) : issueDetected(i + 1, 3 + ((i - 2 * HOT) % others))));
      await db.knex('id_sequences').insert([{ name: 'repository', next_value: TARGETS }, { name: 'issue', next_value: ISSUES }]);
    });
    console.log(`estate: ${TARGETS.toLocaleString('en-US')} repositories, ${ISSUES.toLocaleString('en-US')} open issues (${HOT.toLocaleString('en-US')} on hot repository ${hotTarget}, `
      + `${HOT.toLocaleString('en-US')} medium and low on clean repository ${cleanTarget}, about ${Math.round((ISSUES - 2 * HOT) / others)} on each other one); `
      + `severity mix ${CRITICAL} % critical, ${HIGH} % high, ${MEDIUM} % medium, ${100 - CRITICAL - HIGH - MEDIUM} % low; 5 % imported; appended in ${(built.ms / 1000).toFixed(1)} s (${rate(TARGETS + ISSUES, built.ms)} events/s)`);

    // 2. Vigil on it: migrations (done), projections caught up as at start, HTTP on loopback.
    const config = loadConfig({
      VIGIL_BOOTSTRAP_USERNAME: 'admin', VIGIL_BOOTSTRAP_PASSWORD: 'correct-horse-battery', VIGIL_PORT: '0', VIGIL_LOG_LEVEL: 'error',
      VIGIL_DATA_DIR: '/nonexistent', VIGIL_API_KEY_REQUESTS_PER_MINUTE: '1000000',
    });
    const logger = winston.createLogger({ level: 'error', transports: [new winston.transports.Console()] });
    const s = servicesOf(buildContainer(config, { database: db, logger }));
    services = s;
    const projected = await timed(() => prepare(s));
    console.log(`projection at start (catch-up of ${(TARGETS + ISSUES).toLocaleString('en-US')} events): ${(projected.ms / 1000).toFixed(1)} s (${rate(TARGETS + ISSUES, projected.ms)} events/s)`);
    s.projections.start();
    // The hot repository has been scanned: the gate evaluates its backlog, not only the observation rule.
    await s.commands.appendAll([await completedScan(db, 1, hotTarget), await completedScan(db, 2, cleanTarget)], { actor: null, now: new Date() });
    const { app } = createApp(config, s, allRoutes(s));
    server = http.createServer(app);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
    const signIn = await (await fetch(`${url}/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'correct-horse-battery' }) })).json() as { token: string };
    const issued = await (await fetch(`${url}/api-keys`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${signIn.token}` }, body: JSON.stringify({ name: 'bench-gate', scopes: ['scan'] }) })).json() as { key: string };

    const run = async (target: number, calls: number, callers: number): Promise<{ latencies: number[]; ms: number }> => {
      const { ms, value } = await timed(() => load({ url: `${url}/gate`, key: issued.key, body: JSON.stringify({ repositoryId: target }), calls, callers }));
      return { latencies: value.sort((a, b) => a - b), ms };
    };
    const describe = (label: string, r: { latencies: number[]; ms: number }) => console.log(
      `${label}: p50 ${percentile(r.latencies, 50).toFixed(1)} ms, p99 ${percentile(r.latencies, 99).toFixed(1)} ms, max ${r.latencies[r.latencies.length - 1].toFixed(1)} ms; `
      + `${rate(r.latencies.length, r.ms)} verdicts/s (${r.latencies.length} calls)`,
    );
    const sample = async (target: number) => {
      const res = await fetch(`${url}/gate`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${issued.key}` }, body: JSON.stringify({ repositoryId: target }) });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`POST /gate answered ${res.status}: ${text.slice(0, 300)}`);
      return { violations: (JSON.parse(text) as { violations: unknown[] }).violations.length, kib: (text.length / 1024).toFixed(0) };
    };

    // 3. POST /gate on the hot repository (its critical and high issues fail it), then on the clean one (nothing at or above high).
    for (const [label, target] of [['hot', hotTarget], ['clean', cleanTarget]] as const) {
      await run(target, WARMUP, Math.min(CONCURRENCY, WARMUP));
      const { violations, kib } = await sample(target);
      console.log(`${label} repository ${target} (${HOT.toLocaleString('en-US')} open issues): each verdict ${violations.toLocaleString('en-US')} violations in a ${kib} KiB answer`);
      describe(`  POST /gate, one caller`, await run(target, SEQUENTIAL, 1));
      describe(`  POST /gate, ${CONCURRENCY} concurrent callers`, await run(target, CALLS, CONCURRENCY));
    }
    const verdicts = Number((await db.knex('gate_verdicts').count({ n: '*' }).first())!.n);
    console.log(`verdict register: ${verdicts.toLocaleString('en-US')} rows (one per call)`);

    // 4. A full rebuild of every read model from the log.
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = null;
    await s.projections.stop();
    const total = Number((await db.knex('events').count({ n: '*' }).first())!.n);
    const runner = new ProjectionRunner(db, store, allProjections);
    const rebuilt = await timed(() => runner.rebuild());
    console.log(`projection rebuild: ${(rebuilt.ms / 1000).toFixed(1)} s for ${total.toLocaleString('en-US')} events through ${allProjections.length} projections (${rate(total, rebuilt.ms)} events/s: ${allProjections.map((p) => p.name).join(', ')})`);
  } finally {
    if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
    if (services) await services.projections.stop();
    await drop();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
