import { randomBytes } from 'node:crypto';

/**
 * Bearer secrets: 32 random bytes, base64url, with a readable prefix so that a leaked secret
 * can be recognised (vgl_k_ integration keys, vgl_s_ sessions). Only the SHA-256 is stored.
 */
export function newSecret(kind: 'key' | 'session'): string {
  return `vgl_${kind === 'key' ? 'k' : 's'}_${randomBytes(32).toString('base64url')}`;
}
