import { randomBytes } from 'node:crypto';
import { SecretMinter } from '../../application/identity/ports';
import { SECRET_PREFIX, SecretKind } from '../../domain/identity/bearer-secret';

/**
 * Bearer secrets: 32 random bytes, base64url, after a readable prefix so that a leaked secret can
 * be recognised (domain/identity/bearer-secret.ts). Only the SHA-256 is stored.
 */
export class RandomSecretMinter implements SecretMinter {
  newSecret(kind: SecretKind): string {
    return `${SECRET_PREFIX[kind]}${randomBytes(32).toString('base64url')}`;
  }
}
