import { PlatformKeys } from '../../application/signing/platform-keys';
import { EcdsaKeyMaterial } from '../../infrastructure/crypto/ecdsa-keys';
import { Core } from './core';
import { TargetsContext } from './targets';

/** Exports and the platform signing key (issue #11). */
export function composeExports(core: Core, targets: TargetsContext) {
  const platformKeys = new PlatformKeys(core.config.exports.signingKeyPem, targets.secretBox, core.store, core.commands, core.clock, new EcdsaKeyMaterial());
  return { platformKeys };
}

export type ExportsContext = ReturnType<typeof composeExports>;
