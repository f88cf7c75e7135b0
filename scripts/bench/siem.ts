import * as net from 'node:net';
import { loadConfig } from '../../infrastructure/config/config';
import { compose, prepare } from '../../interfaces/composition/root';
import { streams } from '../../domain/shared/streams';
import { benchDatabase, rate, timed } from './support';

/**
 * npm run bench:siem — against PostgreSQL (VIGIL_BENCH_PG_URL): 100,000 security events
 * (VGL-SEC-009, severity 7) appended to the log, queued by the siem projection (the outbox), then
 * delivered by the deliverer's drain (with its pacing) over syslog TCP (RFC 5424, octet-counted) to
 * a collector in this process that counts the frames it receives. Target (issue #13): under 30 s.
 * Then an outage: the collector is unreachable while BENCH_SIEM_BACKLOG events queue (100,000 by
 * default, an hour of a busy installation). Imports of BENCH_SIEM_FINDINGS findings through the one
 * ingestion path and runs of BENCH_SIEM_GATE_CALLS gate evaluations (a failing verdict each, itself
 * queued as VGL-SEC-003) are timed alone; then the collector is back and the deliverer runs as the
 * server runs it (started: a drain at once, woken by each commit of the outbox projection) while the
 * same rounds run beside the drain; then alone again once the backlog is delivered. Each figure is the
 * median of its rounds; "alone" is the median of the rounds before and after the drain, so a change
 * of the machine's load during the bench shows as a spread between the two. The bound: imports
 * and the gate at most 10 % slower beside the drain.
 */
const EVENTS = Number(process.env.BENCH_SIEM_EVENTS ?? 100_000);
const BATCH = 1000;
const BACKLOG = Number(process.env.BENCH_SIEM_BACKLOG ?? 100_000);
const FINDINGS = Number(process.env.BENCH_SIEM_FINDINGS ?? 5_000);
const ROUNDS = Number(process.env.BENCH_SIEM_ROUNDS ?? 8);
const GATE_CALLS = Number(process.env.BENCH_SIEM_GATE_CALLS ?? 50);
let round = 0;

/** One import of FINDINGS new findings on repository 1 (a tool key of its own, so all are created). */
function importRound(services: ReturnType<typeof compose>): Promise<unknown> {
  const r = ++round;
  const toolKey = `import:bench/tool-${r}`;
  const findings = Array.from({ length: FINDINGS }, (_, i) => ({
    targetKind: 'repository' as const, targetId: 1, toolKey, path: `src/f${i}.c`, type: 'vulnerability' as const, severity: 'high' as const, line: null,
    title: `R${i}`, identifier: `R${i}`, packageName: null, packageVersion: null, fixable: null, ruleId: `R${i}`,
  }));
  return services.backlog.ingest({ actor: null, now: new Date() }, { targetKind: 'repository', targetId: 1, toolKeys: [toolKey] }, findings as never,
    { origin: 'import', source: null, toolName: 'bench', toolVersion: '1', recordId: 5_000_000 + r },
    () => ({ stream: `bench-import-${r}`, events: [{ type: 'FindingsSeeded', data: { recordId: r } }], expectedRevision: 'no_stream' }));
}

const median = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];

const ADMIN = { kind: 'session', accountId: 1, username: 'admin', displayName: 'Admin', roles: ['administrator'], scopes: null, withdrawnScopes: [], keyId: null, restriction: null } as const;

/** GATE_CALLS gate evaluations of repository 1, one after another (each records its verdict and waits for the read models). */
async function gateRound(services: ReturnType<typeof compose>): Promise<unknown> {
  for (let i = 0; i < GATE_CALLS; i += 1) {
    await services.gate.ask({ actor: 1, address: '127.0.0.1', userAgent: 'bench', now: new Date() } as never, ADMIN as never, { repositoryId: 1 } as never);
  }
  return null;
}

/** Rounds of an import then a gate run, timed each; `more` says whether to go on after the first. */
async function rounds(services: ReturnType<typeof compose>, count: number, more: () => boolean = () => true): Promise<{ imports: number[]; gate: number[] }> {
  const out = { imports: [] as number[], gate: [] as number[] };
  for (let i = 0; i < count && (i === 0 || more()); i += 1) {
    out.imports.push((await timed(() => importRound(services))).ms);
    out.gate.push((await timed(() => gateRound(services))).ms);
  }
  return out;
}

/** A TCP collector that counts RFC 6587 frames as they arrive (no buffering of the whole stream). */
async function collector(): Promise<{ port: number; count: () => number; close: () => Promise<void> }> {
  let frames = 0;
  const server = net.createServer((socket) => {
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      let i = 0;
      for (;;) {
        const space = pending.indexOf(0x20, i);
        if (space < 0) break;
        const length = Number(pending.subarray(i, space).toString('ascii'));
        if (space + 1 + length > pending.length) break;
        frames += 1;
        i = space + 1 + length;
      }
      pending = pending.subarray(i);
    });
    socket.on('end', () => socket.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, count: () => frames, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function main(): Promise<void> {
  const { db, drop } = await benchDatabase(10);
  const receiver = await collector();
  // VIGIL_SIEM_BATCH, VIGIL_SIEM_BATCH_PAUSE and the other SIEM settings from the environment, to compare them.
  const siemSettings = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('VIGIL_SIEM_')));
  const services = compose(loadConfig({ VIGIL_LOG_LEVEL: 'error', VIGIL_DATA_DIR: '/nonexistent', VIGIL_SIEM_HOSTNAME: 'vigil-bench', ...siemSettings }), { database: db });
  try {
    await prepare(services);
    const ctx = { actor: null, address: '127.0.0.1', userAgent: 'bench', now: new Date() };
    await services.settings.change(ctx, ['administrator'], { siem_allow_private_destination: true });
    await services.siem.configure(ctx, ['administrator'], { enabled: true, protocol: 'syslog_tcp', endpoint: `127.0.0.1:${receiver.port}`, minimumSeverity: 'high' });
    await services.projections.catchUp();
    await services.siemDeliverer.drain();
    const already = receiver.count();

    const appended = await timed(async () => {
      for (let i = 0; i < EVENTS; i += BATCH) {
        const events = Array.from({ length: Math.min(BATCH, EVENTS - i) }, (_, j) => ({ type: 'BearerFailureCeilingReached', data: { address: `198.51.100.${(i + j) % 250}` } }));
        await services.commands.appendAll([{ stream: streams.bearerFailures, events, expectedRevision: 'any' }], ctx);
      }
    });
    console.log(`appended ${EVENTS.toLocaleString('en-US')} security events in ${(appended.ms / 1000).toFixed(1)} s`);
    const queued = await timed(() => services.projections.catchUp());
    const rows = Number((await db.knex('siem_outbox').count({ n: '*' }).first())!.n);
    console.log(`projections (the outbox among them) caught up in ${(queued.ms / 1000).toFixed(1)} s: ${rows.toLocaleString('en-US')} outbox rows`);

    const delivered = await timed(async () => {
      const summary = await services.siemDeliverer.drain();
      const deadline = Date.now() + 60_000;
      while (receiver.count() - already < EVENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      return summary;
    });
    const received = receiver.count() - already;
    console.log(`delivered over syslog TCP: ${received.toLocaleString('en-US')} of ${EVENTS.toLocaleString('en-US')} received in ${(delivered.ms / 1000).toFixed(1)} s `
      + `(${rate(received, delivered.ms)} events/s, batches of ${services.config.siem.batchSize}, pause ${services.config.siem.batchPauseMs} ms when busy); target: under 30 s`);

    // Repository 1 with the imports' findings: the gate evaluates it (and fails: high findings).
    await services.targets.register(ctx as never, ADMIN as never, 'repository', { url: 'https://git.example.com/bench/siem.git' });
    await importRound(services);

    // The outage: a port nobody listens on; the backlog queues, nothing leaves.
    const closed = await collector();
    const downPort = closed.port;
    await closed.close();
    await services.siem.configure(ctx, ['administrator'], { enabled: true, protocol: 'syslog_tcp', endpoint: `127.0.0.1:${downPort}`, minimumSeverity: 'high' });
    for (let i = 0; i < BACKLOG; i += BATCH) {
      const events = Array.from({ length: Math.min(BATCH, BACKLOG - i) }, (_, j) => ({ type: 'BearerFailureCeilingReached', data: { address: `198.51.100.${(i + j) % 250}` } }));
      await services.commands.appendAll([{ stream: streams.bearerFailures, events, expectedRevision: 'any' }], ctx);
    }
    await services.projections.catchUp();
    // The collector is back. Rounds alone (the deliverer stopped) and beside the drain (the deliverer
    // running as the server runs it: a full turn at start, then woken by commits) alternate in pairs,
    // in ABBA order, so that the machine's changing load weighs on both alike.
    services.projections.start();
    await services.siem.configure(ctx, ['administrator'], { enabled: true, protocol: 'syslog_tcp', endpoint: `127.0.0.1:${receiver.port}`, minimumSeverity: 'high' });
    const start = receiver.count();
    const backlogLeft = () => receiver.count() - start < BACKLOG;
    const alone = { imports: [] as number[], gate: [] as number[] };
    const beside = { imports: [] as number[], gate: [] as number[] };
    let besideMs = 0;
    const runBeside = async () => {
      const t0 = performance.now();
      services.siemDeliverer.start();
      // The turn at start looks for the lowest untried row (once per VIGIL_SIEM_INTERVAL in a server):
      // timed from its first batch on, so that a round measures the drain going on, not that look-up.
      const first = receiver.count();
      while (receiver.count() === first && backlogLeft()) await new Promise((r) => setTimeout(r, 5));
      const r = await rounds(services, 1);
      await services.siemDeliverer.stop();
      besideMs += performance.now() - t0;
      const drainedAll = !backlogLeft();
      if (!drainedAll) { beside.imports.push(...r.imports); beside.gate.push(...r.gate); }
      return drainedAll;
    };
    const runAlone = async () => { const r = await rounds(services, 1); alone.imports.push(...r.imports); alone.gate.push(...r.gate); };
    for (let i = 0; i < ROUNDS && backlogLeft(); i += 1) {
      if (i % 2 === 0) { await runAlone(); if (await runBeside()) break; } else { if (await runBeside()) break; await runAlone(); }
    }
    const duringPairs = receiver.count() - start;
    const rest = await timed(async () => {
      services.siemDeliverer.start();
      while (backlogLeft()) await new Promise((r) => setTimeout(r, 10));
      await services.siemDeliverer.stop();
    });
    const pct = (x: number, y: number) => { const v = ((x / y) - 1) * 100; return `${v >= 0 ? '+' : ''}${v.toFixed(1)} %`; };
    const m = { alone: { imports: median(alone.imports), gate: median(alone.gate) }, beside: { imports: median(beside.imports), gate: median(beside.gate) } };
    console.log(`outage backlog of ${BACKLOG.toLocaleString('en-US')} events: ${duringPairs.toLocaleString('en-US')} delivered during ${beside.imports.length} rounds beside (${(besideMs / 1000).toFixed(1)} s, ${rate(duringPairs, besideMs)}/s paced), `
      + `the rest (${(receiver.count() - start - duringPairs).toLocaleString('en-US')}) in ${(rest.ms / 1000).toFixed(1)} s alone`);
    // Each beside round against the alone round next to it (same pair, ABBA): the load's drift cancels.
    const pairs = (a: number[], b: number[]) => median(b.map((x, i) => x / a[Math.min(i, a.length - 1)]));
    const ratio = (r: number) => `${r >= 1 ? '+' : ''}${((r - 1) * 100).toFixed(1)} %`;
    console.log(`median of the per-pair ratios (beside / alone): imports ${ratio(pairs(alone.imports, beside.imports))}, gate ${ratio(pairs(alone.gate, beside.gate))}; bound: +10 %`);
    console.log(`import of ${FINDINGS.toLocaleString('en-US')} findings, medians of ${alone.imports.length} / ${beside.imports.length}: ${m.alone.imports.toFixed(0)} ms alone, ${m.beside.imports.toFixed(0)} ms beside the drain (${pct(m.beside.imports, m.alone.imports)}); bound: +10 %`);
    console.log(`  rounds alone ${alone.imports.map((x) => x.toFixed(0)).join(', ')}; beside ${beside.imports.map((x) => x.toFixed(0)).join(', ')}`);
    console.log(`${GATE_CALLS} gate evaluations, medians: ${m.alone.gate.toFixed(0)} ms alone, ${m.beside.gate.toFixed(0)} ms beside the drain (${pct(m.beside.gate, m.alone.gate)}); bound: +10 %`);
    console.log(`  rounds alone ${alone.gate.map((x) => x.toFixed(0)).join(', ')}; beside ${beside.gate.map((x) => x.toFixed(0)).join(', ')}`);
  } finally {
    await services.projections.stop();
    await receiver.close();
    await drop();
  }
}

main().then(() => process.exit(0)).catch((error) => {
  console.error(error);
  process.exit(1);
});
