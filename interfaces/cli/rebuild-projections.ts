import { buildContainer, servicesOf } from '../../infrastructure/container';
import { loadConfig } from '../../infrastructure/config/config';
import { runMigrations } from '../../migrations';

/**
 * `npm run projections:rebuild [name ...]`: empties the read models (all, or those named),
 * resets their checkpoints and replays the event log from the start. Safe while Vigil runs:
 * each projection's tables and checkpoint are reset in one transaction.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const services = servicesOf(buildContainer(config));
  await runMigrations(services.db.knex, services.db.engine);
  const names = process.argv.slice(2);
  const selected = names.length ? services.projections.projections.filter((p) => names.includes(p.name)) : services.projections.projections;
  const unknown = names.filter((n) => !services.projections.projections.some((p) => p.name === n));
  if (unknown.length) throw new Error(`Unknown projection ${unknown.join(', ')}; known: ${services.projections.projections.map((p) => p.name).join(', ')}`);
  const started = Date.now();
  await services.projections.rebuild(selected);
  const status = await services.projections.status();
  for (const s of status) process.stdout.write(`${s.name}: position ${s.position}, ${s.lagEvents} behind\n`);
  process.stdout.write(`Rebuilt ${selected.map((p) => p.name).join(', ')} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  await services.store.close();
  await services.db.close();
}

main().catch((error) => {
  process.stderr.write(`Rebuild failed: ${(error as Error).message}\n`);
  process.exit(1);
});
