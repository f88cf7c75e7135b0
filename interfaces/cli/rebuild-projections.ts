import { compose } from '../composition/root';
import { loadConfig } from '../../infrastructure/config/config';
import { runMigrations } from '../../migrations';
import { rebuildProjections } from './rebuild';

/**
 * `npm run projections:rebuild [name ...]`: empties the read models (all, or those named),
 * resets their checkpoints and replays the event log from the start. Safe while Vigil runs:
 * each projection's tables and checkpoint are reset in one transaction. An event a projection
 * cannot take is recorded and skipped (ADR 0011): the rebuild still completes, and prints it.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const services = compose(config);
  await runMigrations(services.db.knex, services.db.engine);
  await rebuildProjections(services.projections, process.argv.slice(2), (line) => process.stdout.write(`${line}\n`), process.stderr);
  await services.store.close();
  await services.db.close();
}

main().catch((error) => {
  process.stderr.write(`Rebuild failed: ${(error as Error).message}\n`);
  process.exit(1);
});
