import * as fs from 'node:fs';
import { createPrivateKey } from 'node:crypto';
import { SettingError } from '../config/units';

/**
 * The export and signing settings (spec 1 §8.3, issue #11), read by loadConfig and validated at start
 * like every other setting: a signing key that is not an ECDSA P-256 PKCS#8 PEM stops the start.
 */
export interface ExportSettings {
  /** VIGIL_SIGNING_KEY or the file VIGIL_SIGNING_KEY_FILE names: the platform key; null: generated on first use and stored sealed. */
  signingKeyPem: string | null;
  /** VIGIL_VEX_AUTHOR: the author of VEX documents; defaults to the brand name (S1.8.3-57). */
  vexAuthor: string;
}

type Env = Record<string, string | undefined>;

const present = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v);

/** The PEM when it is a PKCS#8 ECDSA P-256 private key; a SettingError naming the variable otherwise. */
export function checkSigningKey(setting: string, pem: string): string {
  const text = pem.trim();
  if (!text.startsWith('-----BEGIN PRIVATE KEY-----')) {
    throw new SettingError(setting, 'expected an ECDSA P-256 private key in PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----"), e.g. `openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256`.');
  }
  let key;
  try { key = createPrivateKey({ key: text, format: 'pem' }); } catch {
    throw new SettingError(setting, 'the PKCS#8 PEM cannot be read (damaged, or encrypted with a passphrase); give an unencrypted ECDSA P-256 key.');
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new SettingError(setting, `the key is ${key.asymmetricKeyType}${key.asymmetricKeyDetails?.namedCurve ? ` on ${key.asymmetricKeyDetails.namedCurve}` : ''}; an ECDSA key on P-256 (prime256v1) is expected.`);
  }
  return `${text}\n`;
}

export function loadExportSettings(env: Env, brandName: string): ExportSettings {
  const inline = present(env.VIGIL_SIGNING_KEY);
  const file = present(env.VIGIL_SIGNING_KEY_FILE);
  if (inline && file) throw new SettingError('VIGIL_SIGNING_KEY', 'VIGIL_SIGNING_KEY and VIGIL_SIGNING_KEY_FILE are both set; set only one of them.');
  let signingKeyPem: string | null = null;
  if (inline) signingKeyPem = checkSigningKey('VIGIL_SIGNING_KEY', inline);
  if (file) {
    let text: string;
    try { text = fs.readFileSync(file, 'utf8'); } catch { throw new SettingError('VIGIL_SIGNING_KEY_FILE', `the file "${file}" cannot be read; name a readable file holding the PEM.`); }
    signingKeyPem = checkSigningKey('VIGIL_SIGNING_KEY_FILE', text);
  }
  const vexAuthor = present(env.VIGIL_VEX_AUTHOR)?.trim() ?? brandName;
  if (vexAuthor.length > 200 || /[\u0000-\u001f\u007f-\u009f]/.test(vexAuthor)) throw new SettingError('VIGIL_VEX_AUTHOR', 'at most 200 characters, no control characters.');
  return { signingKeyPem, vexAuthor };
}
