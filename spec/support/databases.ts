import { randomBytes } from 'node:crypto';
import knexFactory from 'knex';
import { DatabaseTarget } from '../../infrastructure/config/database-url';
import { Database, openDatabase } from '../../infrastructure/db/database';
import { runMigrations } from '../../migrations';

/**
 * The engines integration tests run against: embedded PGlite always; PostgreSQL and MariaDB on
 * this machine (VIGIL_TEST_PG_URL, VIGIL_TEST_MYSQL_URL override the defaults). Each test database
 * is created fresh and dropped afterwards. Under CI an unreachable server fails the run; on a
 * developer machine its suites are skipped with a message.
 */
export type TestEngine = 'pglite' | 'postgres' | 'mysql';

const PG_ADMIN = process.env.VIGIL_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MYSQL_ADMIN = process.env.VIGIL_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/mysql';

export const ENGINES: TestEngine[] = (process.env.VIGIL_TEST_ENGINES ?? 'pglite,postgres,mysql').split(',').map((s) => s.trim()) as TestEngine[];

const reachable = new Map<TestEngine, Promise<boolean>>();

async function probe(engine: TestEngine): Promise<boolean> {
  if (engine === 'pglite') return true;
  const admin = adminKnex(engine);
  try {
    await admin.raw('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await admin.destroy();
  }
}

function adminKnex(engine: 'postgres' | 'mysql') {
  const url = new URL(engine === 'postgres' ? PG_ADMIN : MYSQL_ADMIN);
  return knexFactory({
    client: engine === 'postgres' ? 'pg' : 'mysql2',
    connection: { host: url.hostname, port: Number(url.port), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password), database: url.pathname.slice(1) },
    pool: { min: 0, max: 1 },
  });
}

export async function engineAvailable(engine: TestEngine): Promise<boolean> {
  if (!reachable.has(engine)) reachable.set(engine, probe(engine));
  const ok = await reachable.get(engine)!;
  if (!ok && process.env.CI === 'true') throw new Error(`${engine} is not reachable; CI needs it (see .ci/run).`);
  return ok;
}

export interface TestDatabase {
  db: Database;
  target: DatabaseTarget;
  /** The same database opened again (a second "instance"). */
  reopen(): Database;
  drop(): Promise<void>;
}

/** A fresh, migrated database on the engine. */
export async function createTestDatabase(engine: TestEngine, options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  let target: DatabaseTarget;
  const name = `vigil_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  if (engine === 'pglite') {
    target = { engine: 'pglite', dataDir: ':memory:' };
  } else {
    const admin = adminKnex(engine);
    await admin.raw(engine === 'postgres' ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    await admin.destroy();
    const url = new URL(engine === 'postgres' ? PG_ADMIN : MYSQL_ADMIN);
    target = { engine, host: url.hostname, port: Number(url.port), database: name, user: decodeURIComponent(url.username), password: decodeURIComponent(url.password), params: {} };
  }
  const db = openDatabase(target);
  if (options.migrate !== false) await runMigrations(db.knex, db.engine);
  const opened: Database[] = [db];
  return {
    db,
    target,
    reopen: () => {
      if (engine === 'pglite') throw new Error('PGlite is one connection in one process: it has no second instance.');
      const again = openDatabase(target);
      opened.push(again);
      return again;
    },
    drop: async () => {
      for (const d of opened) await d.close().catch(() => undefined);
      if (engine === 'pglite') return;
      const admin = adminKnex(engine);
      await admin.raw(engine === 'postgres' ? `DROP DATABASE IF EXISTS ${name} WITH (FORCE)` : `DROP DATABASE IF EXISTS ${name}`);
      await admin.destroy();
    },
  };
}

/** describe() once per available engine; tests get a fresh migrated database per suite. */
export function describeEachEngine(title: string, body: (ctx: { engine: TestEngine; get: () => TestDatabase }) => void): void {
  for (const engine of ENGINES) {
    describe(`${title} [${engine}] @db`, function () {
      let test: TestDatabase | undefined;
      before(async function () {
        if (!(await engineAvailable(engine))) {
          // eslint-disable-next-line no-console
          console.warn(`  [db] ${engine} not reachable: skipping "${title}".`);
          this.skip();
        }
        test = await createTestDatabase(engine);
      });
      after(async () => { await test?.drop(); });
      body({ engine, get: () => test! });
    });
  }
}
