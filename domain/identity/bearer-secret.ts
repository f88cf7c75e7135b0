/**
 * Bearer secrets carry a readable prefix so that a leaked one can be recognised: `vgl_k_` for
 * integration keys, `vgl_s_` for sessions. Only a secret's SHA-256 is ever stored.
 */
export type SecretKind = 'key' | 'session' | 'scim';

export const SECRET_PREFIX: Readonly<Record<SecretKind, string>> = { key: 'vgl_k_', session: 'vgl_s_', scim: 'vgl_scim_' };

/** How much of a key's secret its listing shows, so that its holder can tell which key it is. */
export const SHOWN_KEY_PREFIX_LENGTH = 12;

export function isSessionSecret(secret: string): boolean {
  return secret.startsWith(SECRET_PREFIX.session);
}
