import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';

/**
 * npm test's runner: the specs in two mocha processes at once, so that the suites that mostly wait
 * (a browser, containers, child processes, git servers) overlap with the ones that mostly compute,
 * plus the heaviest others to even the two groups out. Each group is a whole mocha run; their
 * closing lines are added up into the one CI reads.
 *
 * The "beside" group uses a second PostgreSQL server when VIGIL_TEST_PG_SECOND_URL names one
 * (.ci/run starts it): the projections' late-commit guard reads the server-wide oldest running
 * transaction, so two runs on one server slow each other's projections down. Without it both
 * groups use VIGIL_TEST_PG_URL (or the local default) and are merely slower.
 *
 * VIGIL_TEST_SERIAL=1 runs everything in one process instead (when reading one run's output is
 * easier than two).
 */
const BESIDE = [
  // Suites that mostly wait on something outside mocha: a browser, containers, child processes, servers.
  'spec/interfaces/web/**/*.spec.ts',
  'spec/interfaces/cli/**/*.spec.ts',
  'spec/deployment/**/*.spec.ts',
  'spec/infrastructure/scanning/**/*.spec.ts',
  'spec/infrastructure/siem/rsyslog.spec.ts',
  'spec/interfaces/http/fuzz.spec.ts',
  // The heaviest of the others, moved here so that the two groups take about as long (from a CI
  // run's test-results/spec-timings-*.json: 20.5 and 9.9 minutes before, about 15 each after).
  'spec/interfaces/http/feeds.spec.ts',
  'spec/interfaces/http/audit.spec.ts',
  'spec/interfaces/http/report-imports.spec.ts',
  'spec/interfaces/http/exports/platform-key.spec.ts',
  'spec/interfaces/http/identity.spec.ts',
  'spec/interfaces/http/gate.spec.ts',
  'spec/interfaces/http/scans.spec.ts',
  'spec/interfaces/http/siem.spec.ts',
  'spec/interfaces/http/exports/vex-ingest.spec.ts',
];

interface Group { name: string; args: string[]; env: Record<string, string>; live: boolean }

const serial = process.env.VIGIL_TEST_SERIAL === '1';
const groups: Group[] = serial
  ? [{ name: 'all', args: ['spec/**/*.spec.ts'], env: {}, live: true }]
  : [
      { name: 'main', args: ['spec/**/*.spec.ts', ...BESIDE.flatMap((g) => ['--ignore', g])], env: {}, live: true },
      {
        name: 'beside', args: BESIDE, live: false,
        env: process.env.VIGIL_TEST_PG_SECOND_URL ? { VIGIL_TEST_PG_URL: process.env.VIGIL_TEST_PG_SECOND_URL } : {},
      },
    ];

mkdirSync('test-results', { recursive: true });

function run(group: Group): Promise<{ group: Group; code: number; ms: number }> {
  const timings = `test-results/spec-timings-${group.name}.json`;
  rmSync(timings, { force: true });
  const started = Date.now();
  const child = spawn(process.execPath, ['node_modules/mocha/bin/mocha.js', ...group.args], {
    env: { ...process.env, ...group.env, VIGIL_SPEC_GROUP: group.name },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  // The main group is shown as it runs; the other is kept in its log and shown whole when it ends, so the two never interleave.
  const log = createWriteStream(`test-results/${group.name}.log`);
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.pipe(log, { end: false });
    if (group.live) stream.pipe(stream === child.stdout ? process.stdout : process.stderr, { end: false });
  }
  if (!group.live) console.log(`[test] the ${group.name} group runs beside (${group.args.join(' ')}); its output follows when it ends, and is in test-results/${group.name}.log meanwhile`);
  return new Promise((resolve) => child.on('close', (code, signal) => {
    running.delete(child);
    log.end();
    resolve({ group, code: code ?? (signal ? 1 : 0), ms: Date.now() - started });
  }));
}

const running = new Set<ReturnType<typeof spawn>>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => { for (const child of running) child.kill(signal); process.exit(130); });
}

async function main(): Promise<void> {
  const children = groups.map(run);
  const results: Array<Awaited<ReturnType<typeof run>>> = [];
  for (const pending of children) {
    const r = await pending;
    if (!r.group.live) {
      await new Promise((resolve) => setTimeout(resolve, 200)); // the log stream flushed
      console.log(`\n[test] ---- output of the ${r.group.name} group ----`);
      process.stdout.write(readFileSync(`test-results/${r.group.name}.log`));
    }
    results.push(r);
  }
  let passed = 0, failed = 0, skipped = 0;
  for (const { group, code, ms } of results) {
    const file = `test-results/spec-timings-${group.name}.json`;
    const counts = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) as { passes: number; failures: number; pending: number; files: Record<string, number> } : null;
    if (!counts) {
      console.log(`[test] the ${group.name} group ended (exit ${code}) before mocha's closing summary: counted as one failure`);
      failed += 1;
      continue;
    }
    passed += counts.passes; failed += counts.failures; skipped += counts.pending;
    if (code !== 0 && counts.failures === 0) failed += 1; // exited badly after its tests (a hook, an unhandled error)
    const slowest = Object.entries(counts.files).sort((a, b) => b[1] - a[1]).slice(0, 8).map(([f, t]) => `${f} ${(t / 1000).toFixed(0)} s`).join(', ');
    console.log(`[test] ${group.name}: ${counts.passes} passed, ${counts.failures} failed, ${counts.pending} skipped in ${(ms / 60_000).toFixed(1)} min; slowest files: ${slowest}`);
  }
  process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  process.exitCode = failed > 0 ? 1 : 0;
}

main().catch((error) => { console.error(error); process.exitCode = 1; });
