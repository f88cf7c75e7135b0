import { ProjectionRunner } from '../../projections/engine/projection-runner';
import { rebuildProgress } from './rebuild-progress';

/** Failures printed in full after a rebuild; the rest are counted (all are in projection_failures). */
const PRINTED_FAILURES = 50;

/**
 * What `npm run projections:rebuild [name ...]` does once the database is migrated: rebuild the named
 * projections (all when none is named), then print where each stands and the events it recorded as
 * failures and skipped (ADR 0011). Those do not fail the rebuild.
 */
export async function rebuildProjections(runner: ProjectionRunner, names: readonly string[], write: (line: string) => void, progressStream?: NodeJS.WritableStream): Promise<void> {
  const known = runner.projections.map((p) => p.name);
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length) throw new Error(`Unknown projection ${unknown.join(', ')}; known: ${known.join(', ')}`);
  const selected = names.length ? runner.projections.filter((p) => names.includes(p.name)) : runner.projections;
  const started = Date.now();
  // cli-progress: events done of those in the log, the rate and the time left (on the error stream).
  const progress = progressStream ? rebuildProgress(await runner.eventsInLog(), progressStream) : null;
  try {
    await runner.rebuild(selected, (done) => progress?.update(done));
  } finally {
    progress?.stop();
  }
  const status = await runner.status();
  for (const s of status) write(`${s.name}: position ${s.position}, ${s.lagEvents} behind${s.failures.count ? `, ${s.failures.count} failed event(s) skipped` : ''}`);
  const rebuilt = selected.map((p) => p.name);
  const total = status.filter((s) => rebuilt.includes(s.name)).reduce((sum, s) => sum + s.failures.count, 0);
  if (total > 0) {
    write(`Events the rebuild could not take (recorded in projection_failures, skipped, shown by GET /api/v1/health):`);
    for (const f of await runner.failures(rebuilt, PRINTED_FAILURES)) {
      write(`  ${f.projection}: position ${f.position}, ${f.type} on ${f.stream} (event ${f.eventId}): ${f.error}`);
    }
    if (total > PRINTED_FAILURES) write(`  ... and ${total - PRINTED_FAILURES} more`);
  }
  write(`Rebuilt ${rebuilt.join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)} s${total ? `; ${total} event(s) recorded as failures` : ''}`);
}
