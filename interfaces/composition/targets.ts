import { AgentQueries } from '../../projections/agents/queries';
import { ScanTargetLookup } from '../../projections/targets/scan-target-lookup';
import { CloneCredentials } from '../../application/credentials/clone-credentials';
import { CredentialService } from '../../application/credentials/credential-service';
import { SourceService } from '../../application/sources/source-service';
import { TargetService } from '../../application/targets/target-service';
import { CloneGuard } from '../../infrastructure/scanning/clone-guard';
import { CredentialQueries } from '../../projections/credentials/queries';
import { SqlKeyLookup } from '../../projections/identity/key-lookup';
import { SourceQueries } from '../../projections/sources/queries';
import { PortfolioQueries } from '../../projections/targets/portfolio-queries';
import { TargetQueries } from '../../projections/targets/queries';
import { RepositoryLookups } from '../../projections/targets/repository-lookups';
import { Core } from './core';
import { IdentityContext } from './identity';

/** Repositories and images, their stored clone credentials, and the declared import sources. */
export function composeTargets(core: Core, identity: IdentityContext) {
  const { config, db, commands, ids } = core;
  // Stored clone credentials sealed under ENCRYPTION_KEY or the custody's data key (VIGIL_PREVIOUS_ENCRYPTION_KEYS open older ones).
  const secretBox = core.secretBox;
  const targetQueries = new TargetQueries(db, core.visibility, { defaultIntervalDays: () => identity.settings.get<number>('scan_default_interval_days') });
  const portfolioQueries = new PortfolioQueries(db, core.visibility);
  const repositories = new RepositoryLookups(db);
  const credentialQueries = new CredentialQueries(db, repositories);
  const keys = new SqlKeyLookup(db);
  const sourceQueries = new SourceQueries(db, keys);
  const targets = new TargetService(targetQueries, portfolioQueries, commands, ids, identity.identity,
    // The clone guard on entry (spec 1 §8.3 "checked on entry and before each scan"); the executor builds its own for the scan-time check.
    new CloneGuard({ allowedHosts: config.scanners.gitAllowedHosts }),
    // A target pinned to an agent names one that exists (the agents read model).
    new AgentQueries(db, new ScanTargetLookup(db)));
  return {
    targets, secretBox,
    credentials: new CredentialService(credentialQueries, commands, ids, secretBox),
    sources: new SourceService(sourceQueries, keys, { projectExists: (id) => portfolioQueries.projectExists(id), repositoryExists: (id) => repositories.exists(id) }, commands, ids),
    /** The scan worker's access to the credential a repository names (unsealed for one run). */
    cloneCredentials: new CloneCredentials(repositories, core.store, secretBox),
    /** What the GET routes read. */
    queries: { targetQueries, portfolioQueries, credentialQueries, sourceQueries },
  };
}

export type TargetsContext = ReturnType<typeof composeTargets>;
