import { Knex } from 'knex';
import { v001EventLog } from './v001-event-log';
import { v002Identity } from './v002-identity';
import { v003Targets } from './v003-targets';
import { v004Backlog } from './v004-backlog';
import { v005BuildSbomComponents } from './v005-build-sbom-components';
import { v006Scorecards } from './v006-scorecards';
import { v007Scans } from './v007-scans';
import { v008Enrichment } from './v008-enrichment';
import { v009GateIndexes } from './v009-gate-indexes';
import { v010Credentials } from './v010-credentials';
import { v011ProjectionHandledPosition } from './v011-projection-handled-position';
import { v012EventsIdempotencePerStream } from './v012-events-idempotence-per-stream';
import { v013AuditChainScheme2 } from './v013-audit-chain-scheme-2';
import { v014ProjectionFailures } from './v014-projection-failures';
import { v016AuditChainScheme3 } from './v016-audit-chain-scheme-3';
import { v017SiemExport } from './v017-siem-export';
import { v023Agents } from './v023-agents';
import { v024AgentOperations } from './v024-agent-operations';
import { v026SingleSignOn } from './v026-single-sign-on';
import { v027SecondFactor } from './v027-second-factor';
import { v028Scim } from './v028-scim';
import { v029TargetRequirements } from './v029-target-requirements';
import { v030AsOfHistory } from './v030-as-of-history';
import { v031OwaspCategories } from './v031-owasp-categories';
import { v032ScanClaimOrder } from './v032-scan-claim-order';
import { v018AuditMirror } from './v018-audit-mirror';
import { v020EvidenceBundles } from './v020-evidence-bundles';

export interface Migration {
  name: string;
  up(knex: Knex, engine: 'postgres' | 'mysql' | 'pglite'): Promise<void>;
}

/** In order. Never edit a migration that has shipped: add the next one. */
export const migrations: Migration[] = [
  v001EventLog,
  v002Identity,
  v003Targets,
  v004Backlog,
  v005BuildSbomComponents,
  v006Scorecards,
  v007Scans,
  v008Enrichment,
  v009GateIndexes,
  v010Credentials,
  v011ProjectionHandledPosition,
  v012EventsIdempotencePerStream,
  v013AuditChainScheme2,
  v014ProjectionFailures,
  v016AuditChainScheme3,
  v017SiemExport,
  v018AuditMirror,
  v020EvidenceBundles,
  v023Agents,
  v024AgentOperations,
  v026SingleSignOn,
  v027SecondFactor,
  v028Scim,
  v029TargetRequirements,
  v030AsOfHistory,
  v031OwaspCategories,
  v032ScanClaimOrder,
];

/** knex's migrator with our list as its source: it keeps knex_migrations and a lock row, so two instances starting together run each migration once. */
export async function runMigrations(knex: Knex, engine: 'postgres' | 'mysql' | 'pglite'): Promise<void> {
  await knex.migrate.latest({
    migrationSource: {
      getMigrations: async () => migrations,
      getMigrationName: (m: Migration) => m.name,
      getMigration: async (m: Migration) => ({ up: (k: Knex) => m.up(k, engine), down: async () => { throw new Error('Migrations cannot be reversed; restore a backup.'); } }),
    },
  });
}
