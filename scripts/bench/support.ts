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
