import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ControlPlaneClient } from '../../interfaces/cli/agent/client';
import { startVigil } from '../../spec/support/vigil';
import { countStatements, cpuMeter, postmasterOf, startProfiler } from './support';

/**
 * npm run bench:agents — against PostgreSQL (VIGIL_TEST_PG_URL, default the local server), issue #12:
 *   50 simulated agents with max_concurrent 16 each long-poll one control plane (GET /agent/jobs?wait=2)
 *   over loopback HTTP while 10,000 scans wait; each claimed job is reported at once (a permanent
 *   failure: the cheapest report, so the figure is the claim path's). Checked: every scan claimed
 *   exactly once, no agent above 16 claimed, unreported, unexpired scans (sampled in scan_leases), and
 *   the latency of the polls that claimed (p50, p99; target p99 < 100 ms). Then, in six rounds of
 *   30 s each side, the control plane alone and every agent long-polling an empty queue (wait=30, the
 *   agent's default), in turns: the CPU the control plane and PostgreSQL use above the control plane
 *   alone (target < 1 % of a core).
 * The agents' HTTP clients run in a process of their own (scripts/bench/agent-clients.ts), as real
 * agents do; the control plane's CPU and event loop are measured without them.
 */
const AGENTS = Number(process.env.BENCH_AGENTS ?? 50);
const SLOTS = 16;
const JOBS = Number(process.env.BENCH_JOBS ?? 10_000);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 180_000);
const IDLE_ROUNDS = Number(process.env.BENCH_IDLE_ROUNDS ?? 6);

type Claimed = { t: 'claimed'; claimed: number; reported: number; doubles: number; overLimit: number; latencies: number[]; firstWave: number[]; emptyFirst: number[] };
type Idled = { t: 'idled'; cpuMs: number };
type ClientAnswer = Claimed | Idled | { t: 'error'; message: string };

/** A full garbage collection of this process (the control plane's), without starting node with --expose-gc. */
setFlagsFromString('--expose-gc');
const fullCollection = runInNewContext('gc') as () => void;

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function seed(v: Awaited<ReturnType<typeof startVigil>>): Promise<void> {
  const at = new Date().toISOString();
  const meta = { actor: 1, address: '127.0.0.1', userAgent: 'bench', correlationId: null, at };
  const base = 1_000_000;
  type Append = { stream: string; expectedRevision: 'no_stream'; events: Array<{ id: string; type: string; metadata: typeof meta; data: unknown }> };
  for (let i = 0; i < JOBS; i += 1000) {
    const n = Math.min(1000, JOBS - i);
    await v.services.store.appendMany(Array.from({ length: n }, (_, j): Append => {
      const id = base + i + j;
      return {
        stream: `repository-${id}`, expectedRevision: 'no_stream' as const,
        events: [{ id: randomUUID(), type: 'RepositoryRegistered', metadata: meta, data: {
          id, url: `https://git.example/bench/r${id}`, identity: `git.example/bench/r${id}`, branch: 'main', subPath: '', uniquenessKey: randomUUID().replace(/-/g, ''),
          name: `r${id}`, projectId: null, scanManualOnly: true, scanIntervalMinutes: null, scanCron: null, registeredAt: at, registeredBy: '1',
        } }],
      };
    }).concat(Array.from({ length: n }, (_, j): Append => {
      const id = base + i + j;
      return {
        stream: `scan-${id}`, expectedRevision: 'no_stream' as const,
        events: [{ id: randomUUID(), type: 'ScanRequested', metadata: meta, data: { id, targetKind: 'repository', targetId: id, trigger: 'manual', requiresCredential: false, requestedBy: 1, requestedAt: at } }],
      };
    })).concat(Array.from({ length: n }, (_, j): Append => {
      const id = base + i + j;
      return {
        stream: `scan-waiting-repository-${id}`, expectedRevision: 'no_stream' as const,
        events: [{ id: randomUUID(), type: 'ScanWaitingReserved', metadata: meta, data: { targetKind: 'repository', targetId: id, scanId: id } }],
      };
    })));
  }
  await v.services.projections.waitFor(await v.services.store.head(), ['RepositoryRegistered', 'ScanRequested', 'ScanWaitingReserved'], 600_000);
  // Every projection caught up (the audit chain included), so that the claims do not share the machine with the seeding's catch-up.
  while ((await v.services.projections.status()).some((p) => p.lagEvents > 0)) await new Promise((r) => setTimeout(r, 200));
}

async function main(): Promise<void> {
  const v = await startVigil({ engine: 'postgres', env: { VIGIL_EMBEDDED_WORKER: 'false' }, overrides: { scanExecutor: null } });
  try {
    const admin = await v.signIn();
    const keys: string[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const key = await v.key(admin, { name: `bench-agent-${i}`, scopes: ['agent'] });
      const c = new ControlPlaneClient(v.url, key.key, null);
      await c.hello({ version: '0.11.0', mode: 'local', labels: [] });
      const r = await v.request('PATCH', `/admin/agents/${c.agentId}`, { token: admin, body: { max_concurrent: SLOTS } });
      if (r.status !== 200) throw new Error(`PATCH: ${r.status} ${r.text}`);
      keys.push(key.key);
    }
    await seed(v);
    console.log(`${AGENTS} agents x ${SLOTS} slots, ${JOBS.toLocaleString('en-US')} scans waiting (PostgreSQL); machine load average ${loadavg()[0].toFixed(1)}`);

    // The agents run in a process of their own (scripts/bench/agent-clients.ts), as real agents do.
    const clients = fork(require.resolve('./agent-clients.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const answers: Array<(m: ClientAnswer) => void> = [];
    clients.on('message', (m: ClientAnswer) => {
      if (m.t === 'error') { console.error(`agents' process: ${m.message}`); process.exit(1); }
      answers.shift()?.(m);
    });
    const ask = <T extends ClientAnswer>(m: unknown) => new Promise<T>((resolve) => { answers.push(resolve as (m: ClientAnswer) => void); clients.send(m as never); });
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    let overLimit = 0;
    let maxHeld = 0;
    const sampler = setInterval(() => {
      void v.database.db.knex('scan_leases').where('lease_expires_at', '>', new Date().toISOString()).groupBy('worker').select('worker').count({ n: '*' }).then((rows) => {
        for (const r of rows as Array<{ n: number }>) maxHeld = Math.max(maxHeld, Number(r.n));
        if (rows.some((r) => Number((r as { n: number }).n) > SLOTS)) overLimit++;
      });
    }, 100);
    // The connection pool seen every 100 ms: requests waiting for a connection (a claim queued behind others' statements).
    type Pool = { numPendingAcquires(): number; numUsed(): number; max: number };
    const pool = (v.database.db.knex.client as unknown as { pool: Pool }).pool;
    const poolSeen = { samples: 0, pending: 0, pendingMax: 0, full: 0 };
    const poolSampler = setInterval(() => {
      const pending = pool.numPendingAcquires();
      poolSeen.samples++; poolSeen.pending += pending; poolSeen.pendingMax = Math.max(poolSeen.pendingMax, pending);
      if (pool.numUsed() >= pool.max) poolSeen.full++;
    }, 100);
    const statements = process.env.BENCH_STATEMENTS ? countStatements(v.database.db) : null;
    // PostgreSQL's share is its own server's processes only (other servers on a shared machine left out).
    const postmaster = await postmasterOf(v.database.db);
    const meter = cpuMeter(postmaster, clients.pid);
    // BENCH_PROFILE=<file>: a CPU profile of the control plane over the claims (<file>) and the idle polls (<file>.idle).
    let profiler = process.env.BENCH_PROFILE ? await startProfiler() : null;
    const result = await ask<Claimed>({ t: 'claim', url: v.url, keys, slots: SLOTS, jobs: JOBS });
    overLimit += result.overLimit;
    const busy = meter.stop();
    console.log(`machine load average after the claims: ${loadavg()[0].toFixed(1)}`);
    await profiler?.stop(process.env.BENCH_PROFILE!);
    if (statements) console.log(`statements per claimed scan (claim and report):\n${statements.stop(JOBS)}`);
    clearInterval(sampler);
    clearInterval(poolSampler);
    console.log(`connection pool (max ${pool.max}) while claiming: full in ${(100 * poolSeen.full / Math.max(1, poolSeen.samples)).toFixed(0)} % of samples, requests waiting for a connection ${(poolSeen.pending / Math.max(1, poolSeen.samples)).toFixed(1)} on average, at most ${poolSeen.pendingMax}`);
    loopDelay.disable();
    const sorted = [...result.latencies].sort((a, b) => a - b);
    const wave = [...result.firstWave].sort((a, b) => a - b);
    console.log(`claimed ${result.claimed.toLocaleString('en-US')} scans in ${(busy.wallMs / 1000).toFixed(1)} s (${Math.round(result.claimed / (busy.wallMs / 1000))}/s), reported ${result.reported}; double claims: ${result.doubles}; limit exceeded: ${overLimit} times (highest load seen ${maxHeld} of ${SLOTS})`);
    console.log(`CPU while claiming: the control plane ${(100 * busy.processMs / busy.wallMs).toFixed(0)} % of a core, the agents' process ${(100 * busy.otherMs / busy.wallMs).toFixed(0)} %, PostgreSQL ${(100 * busy.postgresMs / busy.wallMs).toFixed(0)} %`);
    if (sorted.length) console.log(`claiming polls after each agent's first: ${sorted.length}, latency p50 ${quantile(sorted, 0.5).toFixed(1)} ms, p99 ${quantile(sorted, 0.99).toFixed(1)} ms (target < 100 ms), max ${sorted.at(-1)!.toFixed(1)} ms`);
    const all = [...sorted, ...wave].sort((a, b) => a - b);
    if (result.emptyFirst.length) console.log(`first polls that claimed nothing: ${result.emptyFirst.length} (after ${Math.min(...result.emptyFirst).toFixed(0)} to ${Math.max(...result.emptyFirst).toFixed(0)} ms)`);
    console.log(`the first wave (${wave.length} polls, ${AGENTS * SLOTS} claims at once): p50 ${quantile(wave, 0.5).toFixed(0)} ms, max ${wave.at(-1)!.toFixed(0)} ms; every claiming poll: p50 ${quantile(all, 0.5).toFixed(1)} ms, p99 ${quantile(all, 0.99).toFixed(1)} ms`);
    console.log(`the control plane's event loop delay while claiming: p50 ${(loopDelay.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms`);

    // Idle: rounds of the control plane alone and of every agent long-polling an empty queue, in turns,
    // so that what the idle process does anyway (its projection runner polls the log, the garbage
    // collector tidies after the claims) falls equally on both sides of the difference: one baseline
    // taken first, then the polls, read a decaying after-work as a negative cost or its bursts as a
    // cost of the polls. Only once the projections have caught up with the claims.
    while ((await v.services.projections.status()).some((p) => p.lagEvents > 0)) await new Promise((r) => setTimeout(r, 200));
    await new Promise((r) => setTimeout(r, 2000));
    const windowMs = Math.max(1000, Math.round(IDLE_MS / IDLE_ROUNDS));
    type Used = { processMs: number; postgresMs: number; wallMs: number };
    const sum = { alone: { processMs: 0, postgresMs: 0, wallMs: 0 }, polls: { processMs: 0, postgresMs: 0, wallMs: 0 }, agentsMs: 0 };
    const add = (into: Used, m: Used) => { into.processMs += m.processMs; into.postgresMs += m.postgresMs; into.wallMs += m.wallMs; };
    // Each window starts from a collected heap: a major collection (about 200 ms of CPU here) owed to
    // the claims or to the window before otherwise lands in one window or the other, and the figure
    // is then that collection, not the polls. What a window allocates is still collected within it.
    const measure = async (side: 'alone' | 'polls'): Promise<Used> => {
      fullCollection();
      const meter = cpuMeter(postmaster);
      if (side === 'alone') await new Promise((r) => setTimeout(r, windowMs));
      else sum.agentsMs += (await ask<Idled>({ t: 'idle', ms: windowMs })).cpuMs;
      return meter.stop();
    };
    // One round of idle polls first, not counted: the first time a code path runs, V8 compiles it (the
    // idle path, the probe's prepared statement, new connections); that is paid once per process.
    await ask<Idled>({ t: 'idle', ms: Math.min(windowMs, 10_000) });
    profiler = process.env.BENCH_PROFILE ? await startProfiler() : null;
    const rounds: string[] = [];
    // Alone then polled in even rounds, polled then alone in odd ones (ABBA): work the process does on
    // a period of its own (a loop every minute) does not fall on the same side every round.
    for (let round = 0; round < IDLE_ROUNDS; round++) {
      const used = {} as Record<'alone' | 'polls', Used>;
      for (const side of round % 2 === 0 ? ['alone', 'polls'] as const : ['polls', 'alone'] as const) used[side] = await measure(side);
      add(sum.alone, used.alone);
      add(sum.polls, used.polls);
      rounds.push(`${(100 * used.alone.processMs / used.alone.wallMs).toFixed(2)} -> ${(100 * used.polls.processMs / used.polls.wallMs).toFixed(2)} %`);
    }
    console.log(`idle rounds, the control plane alone -> polled: ${rounds.join('; ')}`);
    await profiler?.stop(`${process.env.BENCH_PROFILE}.idle`);
    clients.kill();
    const pct = (ms: number, wall: number) => 100 * ms / wall;
    const own = pct(sum.polls.processMs, sum.polls.wallMs) - pct(sum.alone.processMs, sum.alone.wallMs);
    const pg = pct(sum.polls.postgresMs, sum.polls.wallMs) - pct(sum.alone.postgresMs, sum.alone.wallMs);
    console.log(`idle, ${IDLE_ROUNDS} rounds of ${(windowMs / 1000).toFixed(0)} s alone and ${(windowMs / 1000).toFixed(0)} s of ${AGENTS} long polls, in turns: control plane ${pct(sum.alone.processMs, sum.alone.wallMs).toFixed(2)} % alone, ${pct(sum.polls.processMs, sum.polls.wallMs).toFixed(2)} % polled; PostgreSQL ${pct(sum.alone.postgresMs, sum.alone.wallMs).toFixed(2)} % / ${pct(sum.polls.postgresMs, sum.polls.wallMs).toFixed(2)} %; the agents' process ${pct(sum.agentsMs, sum.polls.wallMs).toFixed(2)} %`);
    console.log(`idle long polls above the control plane alone: control plane ${own.toFixed(2)} % + PostgreSQL ${pg.toFixed(2)} % = ${(own + pg).toFixed(2)} % of a core (target < 1 %)`);
  } finally {
    await v.stop();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
