import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ControlPlaneClient } from '../../interfaces/cli/agent/client';
import { startVigil } from '../../spec/support/vigil';
import { countStatements, cpuMeter, postmasterOf, startProfiler } from './support';

/**
 * npm run bench:agents — against PostgreSQL (VIGIL_TEST_PG_URL, default the local server), issue #12:
 *   50 simulated agents with max_concurrent 16 each long-poll one control plane (GET /agent/jobs?wait=30)
 *   over loopback HTTP while 10,000 scans wait; each claimed job is reported at once (a permanent
 *   failure: the cheapest report, so the figure is the claim path's). Checked: every scan claimed
 *   exactly once, no agent above 16 claimed, unreported, unexpired scans (sampled in scan_leases), and
 *   the latency of the polls that claimed (p50, p99; target p99 < 100 ms). Then every agent long-polls
 *   an empty queue for 30 s: the CPU this process (control plane and the 50 clients) and PostgreSQL
 *   use (target < 1 % of a core).
 * The agents' HTTP clients run in the control plane's own process, so latencies include their share.
 */
const AGENTS = Number(process.env.BENCH_AGENTS ?? 50);
const SLOTS = 16;
const JOBS = Number(process.env.BENCH_JOBS ?? 10_000);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 30_000);

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
    const clients: ControlPlaneClient[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const key = await v.key(admin, { name: `bench-agent-${i}`, scopes: ['agent'] });
      const c = new ControlPlaneClient(v.url, key.key, null);
      await c.hello({ version: '0.11.0', mode: 'local', labels: [] });
      const r = await v.request('PATCH', `/admin/agents/${c.agentId}`, { token: admin, body: { max_concurrent: SLOTS } });
      if (r.status !== 200) throw new Error(`PATCH: ${r.status} ${r.text}`);
      clients.push(c);
    }
    await seed(v);
    console.log(`${AGENTS} agents x ${SLOTS} slots, ${JOBS.toLocaleString('en-US')} scans waiting (PostgreSQL); machine load average ${loadavg()[0].toFixed(1)}`);

    const claimedBy = new Map<number, number>();
    const doubles: number[] = [];
    const latencies: number[] = [];
    // Each agent's first poll: all fifty arrive in the same instant with sixteen free slots each (800 claims at once, a cold pool).
    const firstWave: number[] = [];
    const emptyFirst: number[] = [];
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    let overLimit = 0;
    let maxHeld = 0;
    let reported = 0;
    const done = () => claimedBy.size >= JOBS;
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
    const meter = cpuMeter(postmaster);
    // BENCH_PROFILE=<file>: a CPU profile of this process over the claims (<file>) and the idle polls (<file>.idle).
    let profiler = process.env.BENCH_PROFILE ? await startProfiler() : null;
    const begun = performance.now();
    // Progress every 30 s (a shared machine can make the run long): claimed so far and the claiming polls' p99.
    const progress = setInterval(() => {
      const sofar = [...latencies].sort((x, y) => x - y);
      console.log(`  ${((performance.now() - begun) / 1000).toFixed(0)} s: claimed ${claimedBy.size}, double claims ${doubles.length}, limit exceeded ${overLimit}, claiming polls ${sofar.length}, p50 ${sofar.length ? quantile(sofar, 0.5).toFixed(0) : '-'} ms, p99 ${sofar.length ? quantile(sofar, 0.99).toFixed(0) : '-'} ms`);
    }, 30_000);
    await Promise.all(clients.map(async (c) => {
      const inFlight = new Set<Promise<void>>();
      let first = true;
      while (!done()) {
        const free = SLOTS - inFlight.size;
        if (free <= 0) { await Promise.race(inFlight); continue; }
        const t0 = performance.now();
        const a = await c.poll(done() ? 0 : 2, free);
        const ms = performance.now() - t0;
        if (a.status !== 200) throw new Error(`poll: ${a.status} ${JSON.stringify(a.body)}`);
        if (a.body.jobs.length) (first ? firstWave : latencies).push(ms);
        else if (first) emptyFirst.push(ms);
        first = false;
        if (process.env.BENCH_TRACE && a.body.jobs.length && ms > 100) console.log(`    slow claiming poll at ${((t0 - begun) / 1000).toFixed(1)} s: ${ms.toFixed(0)} ms, ${a.body.jobs.length} of ${free} slots`);
        if (a.body.jobs.length > free) overLimit++;
        for (const job of a.body.jobs as Array<{ id: number; attempt: number }>) {
          if (claimedBy.has(job.id)) doubles.push(job.id);
          claimedBy.set(job.id, c.agentId!);
          const p: Promise<void> = c.failure(job.id, job.attempt, 'bench: reported at once', 'permanent').then((r) => {
            if (r.status !== 200) throw new Error(`failure: ${r.status} ${JSON.stringify(r.body)}`);
            reported++;
          }).finally(() => inFlight.delete(p));
          inFlight.add(p);
        }
      }
      await Promise.all(inFlight);
    }));
    const busy = meter.stop();
    console.log(`machine load average after the claims: ${loadavg()[0].toFixed(1)}`);
    await profiler?.stop(process.env.BENCH_PROFILE!);
    clearInterval(progress);
    if (statements) console.log(`statements per claimed scan (claim and report):\n${statements.stop(JOBS)}`);
    clearInterval(sampler);
    clearInterval(poolSampler);
    console.log(`connection pool (max ${pool.max}) while claiming: full in ${(100 * poolSeen.full / Math.max(1, poolSeen.samples)).toFixed(0)} % of samples, requests waiting for a connection ${(poolSeen.pending / Math.max(1, poolSeen.samples)).toFixed(1)} on average, at most ${poolSeen.pendingMax}`);
    loopDelay.disable();
    const sorted = [...latencies].sort((a, b) => a - b);
    const wave = [...firstWave].sort((a, b) => a - b);
    console.log(`claimed ${claimedBy.size.toLocaleString('en-US')} scans in ${(busy.wallMs / 1000).toFixed(1)} s (${Math.round(claimedBy.size / (busy.wallMs / 1000))}/s), reported ${reported}; double claims: ${doubles.length}; limit exceeded: ${overLimit} times (highest load seen ${maxHeld} of ${SLOTS})`);
    console.log(`claiming polls after each agent's first: ${sorted.length}, latency p50 ${quantile(sorted, 0.5).toFixed(1)} ms, p99 ${quantile(sorted, 0.99).toFixed(1)} ms (target < 100 ms), max ${sorted.at(-1)!.toFixed(1)} ms`);
    const all = [...sorted, ...wave].sort((a, b) => a - b);
    if (emptyFirst.length) console.log(`first polls that claimed nothing: ${emptyFirst.length} (after ${Math.min(...emptyFirst).toFixed(0)} to ${Math.max(...emptyFirst).toFixed(0)} ms)`);
    console.log(`the first wave (${wave.length} polls, ${AGENTS * SLOTS} claims at once): p50 ${quantile(wave, 0.5).toFixed(0)} ms, max ${wave.at(-1)!.toFixed(0)} ms; every claiming poll: p50 ${quantile(all, 0.5).toFixed(1)} ms, p99 ${quantile(all, 0.99).toFixed(1)} ms`);
    console.log(`this process's event loop delay while claiming: p50 ${(loopDelay.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(loopDelay.percentile(99) / 1e6).toFixed(1)} ms`);

    // Idle: first the control plane alone (its projection runner polls the log), then every agent long-polling an empty queue.
    // Both only once the projections have caught up with the claims' and reports' events: their catch-up is not idle cost.
    while ((await v.services.projections.status()).some((p) => p.lagEvents > 0)) await new Promise((r) => setTimeout(r, 200));
    await new Promise((r) => setTimeout(r, 2000));
    const alone = cpuMeter(postmaster);
    await new Promise((r) => setTimeout(r, Math.min(IDLE_MS, 10_000)));
    const baseline = alone.stop();
    console.log(`idle baseline without agents: ${(100 * baseline.processMs / baseline.wallMs).toFixed(2)} % of a core in this process, ${(100 * baseline.postgresMs / baseline.wallMs).toFixed(2)} % in PostgreSQL`);
    const idle = cpuMeter(postmaster);
    profiler = process.env.BENCH_PROFILE ? await startProfiler() : null;
    const end = performance.now() + IDLE_MS;
    await Promise.all(clients.map(async (c) => {
      while (performance.now() < end) {
        const a = await c.poll(Math.max(1, Math.min(30, Math.round((end - performance.now()) / 1000))), SLOTS);
        if (a.status !== 200 || a.body.jobs.length) throw new Error(`idle poll: ${a.status} ${JSON.stringify(a.body).slice(0, 200)}`);
      }
    }));
    const used = idle.stop();
    await profiler?.stop(`${process.env.BENCH_PROFILE}.idle`);
    const own = (100 * used.processMs / used.wallMs) - (100 * baseline.processMs / baseline.wallMs);
    const pg = (100 * used.postgresMs / used.wallMs) - (100 * baseline.postgresMs / baseline.wallMs);
    console.log(`idle: ${AGENTS} long polls for ${(used.wallMs / 1000).toFixed(1)} s: ${(100 * used.processMs / used.wallMs).toFixed(2)} % of a core in this process (control plane and clients), ${(100 * used.postgresMs / used.wallMs).toFixed(2)} % in PostgreSQL; above the baseline: ${own.toFixed(2)} % + ${pg.toFixed(2)} % (target < 1 %)`);
  } finally {
    await v.stop();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
