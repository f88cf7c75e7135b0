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

/**
 * Removes every generation older than `keep` (the one in use), first keeping in `epss_score_history`
 * (v030) the scores of the CVEs the backlog names: the log says which generation was in use at an
 * instant (EpssScoresSynchronised), this keeps what it scored, so GET /issues/{id}?as_of= can answer
 * the EPSS of the past (issue #11) without keeping 250,000 rows a day. It reads `issues` (the
 * backlog's read model, in which the enrichment writes the epss column) for the CVEs worth keeping.
 */
export async function deleteEpssGenerationsBefore(db: Database, keep: number): Promise<void> {
  const k = db.knex;
  const backlogCves = k('issues').whereNotNull('identifier').distinct('identifier');
  await k('epss_score_history')
    .insert(k('epss_scores').where('generation', '<', keep).whereIn('cve', backlogCves).select('generation', 'cve', 'score', 'percentile'))
    .onConflict(['generation', 'cve']).ignore();
  await k('epss_scores').where('generation', '<', keep).del();
}

/** The scores a generation gave these CVEs: from epss_scores while it is kept whole, else from epss_score_history. */
export async function epssScoresOf(db: Database, generation: number, cves: readonly string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (const table of ['epss_scores', 'epss_score_history']) {
    const missing = cves.filter((c) => !found.has(c));
    for (let i = 0; i < missing.length; i += 1000) {
      const rows: Array<{ cve: string; score: number }> = await db.knex(table).where({ generation }).whereIn('cve', missing.slice(i, i + 1000)).select('cve', 'score');
      for (const r of rows) found.set(r.cve, Number(r.score));
    }
  }
  return found;
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
