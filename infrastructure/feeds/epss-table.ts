import type { EpssFile, EpssGenerations } from '../../application/enrichment/ports';
import { Database } from '../db/database';

/**
 * The `epss_scores` table: written here, not by a projection (ADR 0007). Each accepted file is a
 * generation written before its EpssScoresSynchronised event is appended; the projection reads
 * only the generation an event names, so a generation being written is never read and needs no
 * single transaction. Each chunk commits on its own: on PostgreSQL a long transaction would hold
 * back every event reader (they see only commits older than the oldest transaction running).
 * Generations older than the one in use are deleted afterwards; a generation whose event never got
 * appended is deleted the same way by the next accepted file (or at once, when the append fails).
 */
const PG_CHUNK = 20_000;
const MYSQL_CHUNK = 2_000;

export async function writeEpssGeneration(db: Database, generation: number, file: Pick<EpssFile, 'cves' | 'scores' | 'percentiles'>): Promise<void> {
  const total = file.cves.length;
  if (db.engine === 'mysql') {
    for (let i = 0; i < total; i += MYSQL_CHUNK) {
      const rows = [];
      for (let j = i; j < Math.min(total, i + MYSQL_CHUNK); j++) rows.push({ generation, cve: file.cves[j], score: file.scores[j], percentile: file.percentiles[j] });
      await db.knex('epss_scores').insert(rows);
    }
    return;
  }
  // PostgreSQL and PGlite: one array per column through unnest, four bind parameters a statement.
  for (let i = 0; i < total; i += PG_CHUNK) {
    const end = Math.min(total, i + PG_CHUNK);
    await db.knex.raw(
      'INSERT INTO epss_scores (generation, cve, score, percentile) SELECT ?::integer, * FROM unnest(?::text[], ?::double precision[], ?::double precision[])',
      [generation, file.cves.slice(i, end), file.scores.slice(i, end), file.percentiles.slice(i, end)] as never,
    );
  }
}

/** Removes every generation older than `keep` (the one in use). */
export async function deleteEpssGenerationsBefore(db: Database, keep: number): Promise<void> {
  await db.knex('epss_scores').where('generation', '<', keep).del();
}

export async function deleteEpssGeneration(db: Database, generation: number): Promise<void> {
  await db.knex('epss_scores').where({ generation }).del();
}

/** The EpssGenerations port over the functions above. */
export class SqlEpssGenerations implements EpssGenerations {
  constructor(private readonly db: Database) {}

  write(generation: number, file: Pick<EpssFile, 'cves' | 'scores' | 'percentiles'>): Promise<void> {
    return writeEpssGeneration(this.db, generation, file);
  }

  delete(generation: number): Promise<void> {
    return deleteEpssGeneration(this.db, generation);
  }

  deleteBefore(keep: number): Promise<void> {
    return deleteEpssGenerationsBefore(this.db, keep);
  }
}
