import type { MirrorPositions } from '../../application/audit/ports';
import { Database } from '../../infrastructure/db/database';

/** `audit_mirror_positions` (v018): the audit mirror's own progress per path, not a read model. */
export class SqlMirrorPositions implements MirrorPositions {
  constructor(private readonly db: Database) {}

  async get(path: string): Promise<number> {
    const r = await this.db.knex('audit_mirror_positions').where({ path }).first('seq');
    return Number(r?.seq ?? 0);
  }

  async set(path: string, seq: number): Promise<void> {
    await this.db.knex('audit_mirror_positions').insert({ path, seq, updated_at: new Date().toISOString() }).onConflict('path').merge();
  }
}
