import * as fs from 'node:fs';
import { SettingError } from './units';

/**
 * External key custody (spec 1 §8.3, S1.8.3-19 to -22; issue #14): a Vault-compatible transit
 * engine wraps the data keys that seal stored secrets. Asking for it without an endpoint or a
 * token stops the start.
 */
export interface KmsSettings {
  /** VIGIL_ENCRYPTION_KMS_TYPE: vault (the transit secrets engine's HTTP API). */
  type: 'vault';
  /** VIGIL_ENCRYPTION_KMS_ENDPOINT: the server's base URL, e.g. https://vault.example:8200. */
  endpoint: string;
  /** VIGIL_ENCRYPTION_KMS_TOKEN or _TOKEN_FILE: sent as X-Vault-Token. */
  token: string;
  /** VIGIL_ENCRYPTION_KMS_KEY_NAME (default vigil) and _MOUNT_PATH (default transit). */
  keyName: string;
  mountPath: string;
}

type Env = Record<string, string | undefined>;

export function loadKmsSettings(env: Env): KmsSettings | null {
  const read = (name: string) => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const type = read('VIGIL_ENCRYPTION_KMS_TYPE');
  if (!type) return null;
  if (!['vault', 'transit', 'vault-transit'].includes(type.toLowerCase())) {
    throw new SettingError('VIGIL_ENCRYPTION_KMS_TYPE', `"${type}" is not a key custody Vigil speaks; write vault (a Vault-compatible transit engine), or leave it unset for the local ENCRYPTION_KEY.`);
  }
  const endpoint = read('VIGIL_ENCRYPTION_KMS_ENDPOINT');
  if (!endpoint) throw new SettingError('VIGIL_ENCRYPTION_KMS_ENDPOINT', 'VIGIL_ENCRYPTION_KMS_TYPE asks for external key custody without the transit server\'s URL; set VIGIL_ENCRYPTION_KMS_ENDPOINT, e.g. https://vault.example:8200.');
  if (!/^https?:\/\/[^\s]+$/i.test(endpoint)) throw new SettingError('VIGIL_ENCRYPTION_KMS_ENDPOINT', 'expected an http(s) URL, e.g. https://vault.example:8200.');
  const inline = read('VIGIL_ENCRYPTION_KMS_TOKEN');
  const file = read('VIGIL_ENCRYPTION_KMS_TOKEN_FILE');
  if (inline && file) throw new SettingError('VIGIL_ENCRYPTION_KMS_TOKEN', 'VIGIL_ENCRYPTION_KMS_TOKEN and VIGIL_ENCRYPTION_KMS_TOKEN_FILE are both set; set only one of them.');
  let token = inline;
  if (file) {
    try {
      token = fs.readFileSync(file, 'utf8').trim();
    } catch {
      throw new SettingError('VIGIL_ENCRYPTION_KMS_TOKEN_FILE', `the file "${file}" cannot be read; name a readable file holding the token.`);
    }
  }
  if (!token) throw new SettingError('VIGIL_ENCRYPTION_KMS_TOKEN', 'VIGIL_ENCRYPTION_KMS_TYPE asks for external key custody without a token; set VIGIL_ENCRYPTION_KMS_TOKEN or VIGIL_ENCRYPTION_KMS_TOKEN_FILE.');
  const segment = (name: string, fallback: string) => {
    const value = (read(name) ?? fallback).replace(/^\/+|\/+$/g, '');
    if (!/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(value)) throw new SettingError(name, `"${value}" is not a transit path; write letters, digits, ".", "_" or "-" (slashes between segments of a mount path).`);
    return value;
  };
  return { type: 'vault', endpoint: endpoint.replace(/\/+$/, ''), token, keyName: segment('VIGIL_ENCRYPTION_KMS_KEY_NAME', 'vigil'), mountPath: segment('VIGIL_ENCRYPTION_KMS_MOUNT_PATH', 'transit') };
}
