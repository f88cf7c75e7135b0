import { Database, rawRows } from './database';

interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

const pgText = new Map<string, string>();

/** `?` placeholders as PostgreSQL's `$1, $2, ...` (the statements given here hold no `?` in literals). */
function numbered(text: string): string {
  let cached = pgText.get(text);
  if (cached === undefined) {
    let n = 0;
    cached = text.replace(/\?/g, () => `$${++n}`);
    pgText.set(text, cached);
  }
  return cached;
}

/**
 * A named statement on a pooled PostgreSQL connection (`$n` placeholders): each connection
 * parses and plans it once. PostgreSQL keys prepared statements by name, so a name must always
 * stand for the same text.
 */
export async function pgNamedQuery<R>(db: Database, name: string, text: string, values: unknown[]): Promise<R[]> {
  const client = db.knex.client as unknown as { acquireConnection(): Promise<PgConnection>; releaseConnection(c: PgConnection): Promise<void> };
  const connection = await client.acquireConnection();
  try {
    return (await connection.query({ name, text, values })).rows as R[];
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * A statement on the hot path of many calls (authentication, the gate): on PostgreSQL a named
 * prepared statement, so each pooled connection parses and plans it once instead of on every call,
 * and no query builder runs per call; on MySQL/MariaDB and PGlite the same text through knex.raw.
 */
export async function preparedRows<R>(db: Database, name: string, text: string, values: unknown[]): Promise<R[]> {
  if (db.engine !== 'postgres') return rawRows<R>(db, await db.knex.raw(text, values as never));
  return pgNamedQuery<R>(db, name, numbered(text), values);
}
