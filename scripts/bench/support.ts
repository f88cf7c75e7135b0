import * as fs from 'node:fs';
import * as inspector from 'node:inspector';
import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import { Database, openDatabase } from '../../infrastructure/db/database';
import { runMigrations } from '../../migrations';

/** A fresh, migrated PostgreSQL database for a benchmark (VIGIL_BENCH_PG_URL names the server). */
export async function benchDatabase(poolMax = 20): Promise<{ db: Database; drop: () => Promise<void> }> {
  const url = new URL(process.env.VIGIL_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const admin = knexFactory({ client: 'pg', connection: { host: url.hostname, port: Number(url.port || 5432), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password), database: url.pathname.slice(1) } });
  const name = `vigil_bench_${randomBytes(4).toString('hex')}`;
  await admin.raw(`CREATE DATABASE ${name}`);
  const db = openDatabase({ engine: 'postgres', host: process.env.VIGIL_BENCH_PG_HOST ?? url.hostname, port: Number(url.port || 5432), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password), database: name, params: {} }, { poolMax });
  await runMigrations(db.knex, db.engine);
  return {
    db,
    drop: async () => {
      await db.close();
      await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.destroy();
    },
  };
}

export function rate(count: number, ms: number): string {
  return Math.round((count / ms) * 1000).toLocaleString('en-US');
}

export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, value };
}

/** A process's name, parent and CPU so far (utime + stime) from /proc/<pid>/stat; null when it ended. */
function procStat(pid: number): { name: string; parent: number; cpuMs: number } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[1]: parent pid; fields[11], [12]: utime, stime in ticks (USER_HZ is 100 on Linux).
    return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), parent: Number(fields[1]), cpuMs: (Number(fields[11]) + Number(fields[12])) * (1000 / 100) };
  } catch {
    return null;
  }
}

/**
 * CPU time of the local PostgreSQL processes by pid, in ms: of one server (its postmaster and the
 * processes it started) when `postmaster` is given, else of every `postgres` process on this machine
 * (other servers included, which a shared machine makes noisy).
 */
export function postgresCpuByPid(postmaster?: number): Map<number, number> {
  const found = new Map<number, number>();
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = procStat(Number(pid));
    if (!stat || stat.name !== 'postgres') continue;
    if (postmaster !== undefined && Number(pid) !== postmaster && stat.parent !== postmaster) continue;
    found.set(Number(pid), stat.cpuMs);
  }
  return found;
}

/** Total of postgresCpuByPid. */
export function postgresCpuMs(postmaster?: number): number {
  let ms = 0;
  for (const v of postgresCpuByPid(postmaster).values()) ms += v;
  return ms;
}

/** The postmaster of the server a connection of `db` talks to (the parent of its backend), when it runs on this machine. */
export async function postmasterOf(db: Database): Promise<number | undefined> {
  try {
    const backend = Number((await db.knex.raw('SELECT pg_backend_pid() AS pid')).rows[0].pid);
    return procStat(backend)?.parent;
  } catch {
    return undefined;
  }
}

/** CPU a process of this machine has used so far, 0 when it is gone. */
export function processCpuMs(pid: number): number {
  return procStat(pid)?.cpuMs ?? 0;
}

/**
 * CPU used by this process (Vigil and whatever else runs in it), by PostgreSQL, and by one other
 * process (`other`, e.g. the bench's clients) between start and stop.
 */
export function cpuMeter(postmaster?: number, other?: number) {
  const process0 = process.cpuUsage();
  const postgres0 = postgresCpuByPid(postmaster);
  const other0 = other === undefined ? 0 : processCpuMs(other);
  const wall0 = performance.now();
  return {
    stop() {
      const used = process.cpuUsage(process0);
      // Per process: a backend that exited meanwhile (the pool closes idle connections) does not make the sum fall.
      let postgresMs = 0;
      for (const [pid, ms] of postgresCpuByPid(postmaster)) postgresMs += Math.max(0, ms - (postgres0.get(pid) ?? 0));
      const otherMs = other === undefined ? 0 : Math.max(0, processCpuMs(other) - other0);
      return { processMs: (used.user + used.system) / 1000, postgresMs, otherMs, wallMs: performance.now() - wall0 };
    },
  };
}

/** Statements sent through knex between start and stop, per call, most frequent first (BENCH_STATEMENTS=1). */
export function countStatements(db: Database) {
  const counts = new Map<string, number>();
  const onQuery = (q: { sql: string }) => { const k = q.sql.replace(/\s+/g, ' ').slice(0, 100); counts.set(k, (counts.get(k) ?? 0) + 1); };
  db.knex.on('query', onQuery);
  return {
    stop(calls: number): string {
      db.knex.removeListener('query', onQuery);
      return [...counts].sort((a, b) => b[1] - a[1]).map(([sql, n]) => `    ${(n / calls).toFixed(2)}  ${sql}`).join('\n');
    },
  };
}

/** A CPU profile of this process's main thread (Vigil) between start and stop (BENCH_PROFILE=<file>). */
export async function startProfiler() {
  const session = new inspector.Session();
  session.connect();
  const post = <T>(method: string) => new Promise<T>((resolve, reject) => session.post(method, (e, r) => (e ? reject(e) : resolve(r as T))));
  await post('Profiler.enable');
  await post('Profiler.start');
  return {
    async stop(file: string) {
      const { profile } = await post<{ profile: unknown }>('Profiler.stop');
      fs.writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}
