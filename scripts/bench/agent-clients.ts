import { performance } from 'node:perf_hooks';
import { ControlPlaneClient } from '../../interfaces/cli/agent/client';

/**
 * The fifty simulated agents of bench:agents, in a process of their own (forked by
 * scripts/bench/agents.ts), as real agents are: their HTTP clients' CPU and callbacks are not
 * counted in, nor queued on, the control plane's process. Messages (IPC):
 *   in  {t:'claim', url, keys, slots, jobs}  -> out {t:'claimed', ...figures} when every job is claimed and reported
 *   in  {t:'idle', ms}                       -> out {t:'idled', cpuMs} after long-polling an empty queue for ms
 * Progress every 30 s on stdout, as the bench did in one process.
 */
type Claim = { t: 'claim'; url: string; keys: string[]; slots: number; jobs: number };
type Idle = { t: 'idle'; ms: number };

let clients: ControlPlaneClient[] = [];
const send = (m: unknown) => new Promise<void>((resolve) => process.send!(m, () => resolve()));

async function claim(m: Claim): Promise<void> {
  clients = m.keys.map((key) => new ControlPlaneClient(m.url, key, null));
  for (const c of clients) await c.hello({ version: '0.11.0', mode: 'local', labels: [] });
  const claimedBy = new Map<number, number>();
  const doubles: number[] = [];
  const latencies: number[] = [];
  const firstWave: number[] = [];
  const emptyFirst: number[] = [];
  let overLimit = 0;
  let reported = 0;
  const done = () => claimedBy.size >= m.jobs;
  const begun = performance.now();
  const quantile = (s: number[], q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  const progress = setInterval(() => {
    const sofar = [...latencies].sort((x, y) => x - y);
    console.log(`  ${((performance.now() - begun) / 1000).toFixed(0)} s: claimed ${claimedBy.size}, double claims ${doubles.length}, claiming polls ${sofar.length}, p50 ${sofar.length ? quantile(sofar, 0.5).toFixed(0) : '-'} ms, p99 ${sofar.length ? quantile(sofar, 0.99).toFixed(0) : '-'} ms`);
  }, 30_000);
  await Promise.all(clients.map(async (c) => {
    const inFlight = new Set<Promise<void>>();
    let first = true;
    while (!done()) {
      const free = m.slots - inFlight.size;
      if (free <= 0) { await Promise.race(inFlight); continue; }
      const t0 = performance.now();
      const a = await c.poll(done() ? 0 : 2, free);
      const ms = performance.now() - t0;
      if (a.status !== 200) throw new Error(`poll: ${a.status} ${JSON.stringify(a.body)}`);
      if (a.body.jobs.length) (first ? firstWave : latencies).push(ms);
      else if (first) emptyFirst.push(ms);
      first = false;
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
  clearInterval(progress);
  await send({ t: 'claimed', claimed: claimedBy.size, reported, doubles: doubles.length, overLimit, latencies, firstWave, emptyFirst });
}

async function idle(m: Idle): Promise<void> {
  const cpu0 = process.cpuUsage();
  const end = performance.now() + m.ms;
  await Promise.all(clients.map(async (c) => {
    while (performance.now() < end) {
      const a = await c.poll(Math.max(1, Math.min(30, Math.round((end - performance.now()) / 1000))), 16);
      if (a.status !== 200 || a.body.jobs.length) throw new Error(`idle poll: ${a.status} ${JSON.stringify(a.body).slice(0, 200)}`);
    }
  }));
  const used = process.cpuUsage(cpu0);
  await send({ t: 'idled', cpuMs: (used.user + used.system) / 1000 });
}

process.on('message', (m: Claim | Idle) => {
  const work = m.t === 'claim' ? claim(m) : idle(m);
  work.catch(async (error) => {
    await send({ t: 'error', message: (error as Error)?.stack ?? String(error) });
    process.exit(1);
  });
});
