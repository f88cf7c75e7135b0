import { v7 as uuidV7 } from 'uuid';
import { IdGenerator } from '../../application/ports/ids';
import { Database, rawRows } from './database';

/**
 * Event ids are time-ordered UUIDs (version 7, RFC 9562, ADR 0009): an id tells when its event was
 * made, and any index on ids (a SIEM's, a future one here) grows at its right edge. The log's own
 * unique index on them is gone since ADR 0010 (idempotence per stream).
 * The text is copied out flat: the library concatenates it from some twenty pieces, and V8 keeps
 * that tree (about 490 bytes) until the string is read whole; a 50,000-event commit held 24 MB of them.
 */
export function newEventId(): string {
  return Buffer.from(uuidV7(), 'latin1').toString('latin1');
}

/**
 * Integer ids from a row per kind, incremented atomically in the database so that several
 * instances never hand out the same id. Gaps (an id taken by a refused command) are harmless.
 */
export class SqlIdGenerator implements IdGenerator {
  constructor(private readonly db: Database) {}

  uuid(): string {
    return newEventId();
  }

  async next(kind: string): Promise<number> {
    return (await this.nextBlock(kind, 1))[0];
  }

  async nextBlock(kind: string, count: number): Promise<number[]> {
    if (count <= 0) return [];
    const last = await this.advance(kind, count);
    return Array.from({ length: count }, (_, i) => last - count + 1 + i);
  }

  private async advance(kind: string, count: number): Promise<number> {
    if (this.db.engine === 'mysql') {
      // LAST_INSERT_ID is per connection: read it on the same one.
      return this.db.knex.transaction(async (trx) => {
        await trx.raw('INSERT INTO id_sequences (name, next_value) VALUES (?, LAST_INSERT_ID(?)) ON DUPLICATE KEY UPDATE next_value = LAST_INSERT_ID(next_value + ?)', [kind, count, count]);
        const rows = rawRows<{ id: number }>(this.db, await trx.raw('SELECT LAST_INSERT_ID() AS id'));
        return Number(rows[0].id);
      });
    }
    const result = await this.db.knex.raw(
      `INSERT INTO id_sequences (name, next_value) VALUES (?, ?)
       ON CONFLICT (name) DO UPDATE SET next_value = id_sequences.next_value + ?
       RETURNING next_value`,
      [kind, count, count],
    );
    return Number(rawRows<{ next_value: number }>(this.db, result)[0].next_value);
  }
}
