import { randomUUID } from 'node:crypto';
import { NewEvent } from '../../domain/shared/event-envelope';
import { newEventId } from '../../infrastructure/db/sql-id-generator';
import { SqlEventStore } from '../../infrastructure/eventstore/sql-event-store';
import { allProjections } from '../../projections';
import { ProjectionRunner } from '../../projections/engine/projection-runner';
import { benchDatabase, cpuMeter, rate, startProfiler, timed } from './support';

/**
 * npm run bench:events — against PostgreSQL (VIGIL_BENCH_PG_URL):
 *   single-event appends per second (concurrent appenders, one event per call),
 *   events per second in batches of 500,
 *   projection replay (rebuild of every read model) over 200,000 events.
 * Targets on 2 cores (issue 2): 5,000 appends/s, 100,000 events/s batched, replay ≥ 30,000 events/s.
 */
const SINGLE = Number(process.env.BENCH_SINGLE ?? 20_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 200);
const REPLAY = Number(process.env.BENCH_REPLAY ?? 200_000);
/** Event ids as Vigil makes them (time-ordered). */
const eventId = newEventId;
const meta = { actor: 1, address: '127.0.0.1', userAgent: 'bench', correlationId: null, at: '2026-01-01T00:00:00.000Z' };

function repositoryRegistered(id: number): NewEvent {
  return {
    id: eventId(), type: 'RepositoryRegistered', metadata: meta,
    data: { id, url: `https://git.example/org/repo-${id}`, identity: `git.example/org/repo-${id}`, branch: 'main', subPath: '', uniquenessKey: randomUUID().replace(/-/g, ''), name: `repo-${id}`, projectId: null, scanManualOnly: false, scanIntervalMinutes: null, scanCron: null, registeredAt: meta.at, registeredBy: '1' },
  };
}

function settingChanged(i: number): NewEvent {
  return { id: eventId(), type: 'SettingChanged', metadata: meta, data: { name: 'scan_default_interval_days', value: i % 30, previous: (i + 29) % 30 } };
}

async function main(): Promise<void> {
  const { db, drop } = await benchDatabase(CONCURRENCY);
  const store = new SqlEventStore(db);
  try {
    // 1. single-event appends, CONCURRENCY appenders on distinct streams
    let next = 0;
    const single = await timed(async () => {
      await Promise.all(Array.from({ length: CONCURRENCY }, async (_, w) => {
        let revision: number | 'no_stream' = 'no_stream';
        while (next < SINGLE) {
          next++;
          const r = await store.append(`bench-single-${w}`, [settingChanged(next)], revision);
          revision = r.nextRevision;
        }
      }));
    });
    console.log(`single-event appends: ${rate(SINGLE, single.ms)} appends/s (${SINGLE} appends, ${CONCURRENCY} concurrent appenders, ${single.ms.toFixed(0)} ms)`);

    // 2. batches of 500: one writer, then four side by side (importers run concurrently). The
    //    callers' events are made before the clock starts, as a command's are before it appends:
    //    what is timed is the store's work (serialising, sending, inserting, committing).
    let id = 0;
    const batch = () => Array.from({ length: 500 }, () => repositoryRegistered(++id));
    const ready = Array.from({ length: BATCHES }, batch);
    const batchCpu = cpuMeter();
    const batched = await timed(async () => {
      for (let b = 0; b < BATCHES; b++) await store.append(`bench-batch-${b}`, ready[b], 'no_stream');
    });
    const batchUsed = batchCpu.stop();
    console.log(`batched appends (500 per call, one writer): ${rate(BATCHES * 500, batched.ms)} events/s (${BATCHES * 500} events, ${batched.ms.toFixed(0)} ms; CPU: Vigil ${batchUsed.processMs.toFixed(0)} ms, PostgreSQL ${batchUsed.postgresMs.toFixed(0)} ms)`);
    const prepared = Array.from({ length: BATCHES }, batch);
    const parallel = await timed(() => Promise.all([0, 1, 2, 3].map(async (w) => {
      for (let b = w; b < BATCHES; b += 4) await store.append(`bench-parallel-${b}`, prepared[b], 'no_stream');
    })));
    console.log(`batched appends (500 per call, four writers): ${rate(BATCHES * 500, parallel.ms)} events/s (${BATCHES * 500} events, ${parallel.ms.toFixed(0)} ms)`);

    // 3. replay: top the log up to REPLAY events, then rebuild every read model from zero (BENCH_REPLAY=0 skips it)
    if (REPLAY === 0) return;
    const have = SINGLE + BATCHES * 1000;
    for (let b = 0; have + b * 500 < REPLAY; b++) {
      await store.append(`bench-fill-${b}`, Array.from({ length: 500 }, (_, i) => (i % 2 ? repositoryRegistered(++id) : settingChanged(i))), 'no_stream');
    }
    const total = Number((await db.knex('events').count({ n: '*' }).first())!.n);
    const runner = new ProjectionRunner(db, store, allProjections);
    const profiler = process.env.BENCH_PROFILE ? await startProfiler() : null;
    const cpu = cpuMeter();
    const replay = await timed(() => runner.rebuild());
    const used = cpu.stop();
    if (profiler) await profiler.stop(process.env.BENCH_PROFILE!);
    console.log(`projection replay: ${rate(total, replay.ms)} events/s (${total} events through ${allProjections.length} projections: ${allProjections.map((p) => p.name).join(', ')}; ${replay.ms.toFixed(0)} ms; CPU: Vigil ${used.processMs.toFixed(0)} ms, PostgreSQL ${used.postgresMs.toFixed(0)} ms)`);
  } finally {
    await drop();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
