import { Database } from '../db/database';
import type { EpssFile } from './epss-scores';

/**
 * The `epss_scores` table: written here, not by a projection (ADR 0007). Each accepted file is a
 * generation written in one transaction before its EpssScoresSynchronised event is appended; the
 * projection reads the generation the event names. Generations older than the one in use are
 * deleted afterwards; a generation whose event never got appended is deleted the same way by the
 * next accepted file (or at once, when the append fails).
 */
const PG_CHUNK = 20_000;
const MYSQL_CHUNK = 2_000;

export async function writeEpssGeneration(db: Database, generation: number, file: Pick<EpssFile, 'cves' | 'scores' | 'percentiles'>): Promise<void> {
  await db.knex.transaction(async (trx) => {
    const total = file.cves.length;
    if (db.engine === 'mysql') {
      for (let i = 0; i < total; i += MYSQL_CHUNK) {
        const rows = [];
        for (let j = i; j < Math.min(total, i + MYSQL_CHUNK); j++) rows.push({ generation, cve: file.cves[j], score: file.scores[j], percentile: file.percentiles[j] });
        await trx('epss_scores').insert(rows);
      }
      return;
    }
    // PostgreSQL and PGlite: one array per column through unnest, four bind parameters a statement.
    for (let i = 0; i < total; i += PG_CHUNK) {
      const end = Math.min(total, i + PG_CHUNK);
      await trx.raw(
        'INSERT INTO epss_scores (generation, cve, score, percentile) SELECT ?::integer, * FROM unnest(?::text[], ?::double precision[], ?::double precision[])',
        [generation, file.cves.slice(i, end), file.scores.slice(i, end), file.percentiles.slice(i, end)] as never,
      );
    }
  });
}

/** Removes every generation older than `keep` (the one in use). */
export async function deleteEpssGenerationsBefore(db: Database, keep: number): Promise<void> {
  await db.knex('epss_scores').where('generation', '<', keep).del();
}

export async function deleteEpssGeneration(db: Database, generation: number): Promise<void> {
  await db.knex('epss_scores').where({ generation }).del();
}
