import * as fs from 'node:fs';
import knexFactory, { Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { types as pgTypes } from 'pg';
import { DatabaseTarget } from '../config/database-url';

export type Engine = 'postgres' | 'mysql' | 'pglite';

/** The relational database: events (unless EventStoreDB holds them), read models, checkpoints. */
export interface Database {
  readonly knex: Knex;
  readonly engine: Engine;
  /** PostgreSQL dialects (server or embedded) share SQL; MySQL/MariaDB differs. */
  readonly isPostgres: boolean;
  close(): Promise<void>;
}

// int8 (count(*), bigserial positions) as numbers: positions stay far below 2^53.
pgTypes.setTypeParser(20, (v) => Number(v));

export function openDatabase(target: DatabaseTarget, options: { poolMax?: number } = {}): Database {
  let knex: Knex;
  let engine: Engine;
  if (target.engine === 'pglite') {
    engine = 'pglite';
    const inMemory = target.dataDir === ':memory:';
    if (!inMemory) fs.mkdirSync(target.dataDir, { recursive: true });
    knex = knexFactory({
      client: ClientPgLite as unknown as typeof Knex.Client,
      dialect: 'postgres',
      connection: inMemory ? {} : { filename: target.dataDir },
      useNullAsDefault: true,
    } as Knex.Config);
  } else if (target.engine === 'postgres') {
    engine = 'postgres';
    knex = knexFactory({
      client: 'pg',
      connection: { host: target.host, port: target.port, database: target.database, user: target.user, password: target.password },
      pool: { min: 0, max: options.poolMax ?? 10 },
    });
  } else {
    engine = 'mysql';
    knex = knexFactory({
      client: 'mysql2',
      connection: {
        host: target.host, port: target.port, database: target.database, user: target.user, password: target.password,
        supportBigNumbers: true, bigNumberStrings: false, charset: 'utf8mb4', timezone: 'Z',
      },
      pool: { min: 0, max: options.poolMax ?? 10 },
    });
  }
  return { knex, engine, isPostgres: engine !== 'mysql', close: () => knex.destroy() };
}

/** Rows affected by an update/delete, whatever the driver's shape. */
export function affectedRows(result: unknown): number {
  if (typeof result === 'number') return result;
  if (Array.isArray(result)) return affectedRows(result[0]);
  const r = result as { affectedRows?: number; rowCount?: number };
  return r?.affectedRows ?? r?.rowCount ?? 0;
}

/** Rows of knex.raw across drivers (pg: {rows}, mysql2: [rows, fields]). */
export function rawRows<T>(db: Database, result: unknown): T[] {
  if (db.engine === 'mysql') return (result as [T[]])[0];
  return (result as { rows: T[] }).rows;
}
