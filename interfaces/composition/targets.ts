import { CredentialService } from '../../application/credentials/credential-service';
import { SourceService } from '../../application/sources/source-service';
import { TargetService } from '../../application/targets/target-service';
import { AesGcmSecretBox } from '../../infrastructure/crypto/secret-box';
import { CloneGuard } from '../../infrastructure/scanning/clone-guard';
import { Core } from './core';
import { IdentityContext } from './identity';

/** Repositories and images, their stored clone credentials, and the declared import sources. */
export function composeTargets(core: Core, identity: IdentityContext) {
  const { config } = core;
  // Stored clone credentials sealed under ENCRYPTION_KEY (VIGIL_PREVIOUS_ENCRYPTION_KEYS open older ones).
  const secretBox = new AesGcmSecretBox(config.encryptionKey, config.previousEncryptionKeys);
  const targets = new TargetService(core.db, core.visibility, core.commands, core.ids, identity.identity, identity.settings, config,
    // The clone guard on entry (spec 1 §8.3 "checked on entry and before each scan"); the executor builds its own for the scan-time check.
    new CloneGuard({ allowedHosts: config.scanners.gitAllowedHosts }));
  return {
    targets, secretBox,
    credentials: new CredentialService(core.db, core.commands, core.ids, secretBox),
    sources: new SourceService(core.db, core.commands, core.ids),
  };
}

export type TargetsContext = ReturnType<typeof composeTargets>;
