import { KeyCustody, KeyCustodyRefused } from '../../application/ports/key-custody';
import type { KmsSettings } from '../config/kms-settings';

const TIMEOUT_MS = 10_000;

/**
 * The transit secrets engine's HTTP API (Vault and compatible servers): GET keys/<name> to read the
 * key's properties, POST encrypt/<name> and decrypt/<name> with a context, since the key must be
 * derived (S1.8.3-22): each data key is wrapped under a key derived for its own context.
 */
export class VaultTransit implements KeyCustody {
  readonly name: string;

  constructor(private readonly settings: KmsSettings) {
    this.name = `${settings.endpoint}/v1/${settings.mountPath}/keys/${settings.keyName}`;
  }

  async checkKey(): Promise<void> {
    const data = await this.call('GET', `keys/${this.settings.keyName}`);
    if (data.derived !== true) {
      throw new KeyCustodyRefused(`The transit key ${this.name} is not derived; Vigil refuses to encrypt under it. Create a key with derived=true (vault write -f ${this.settings.mountPath}/keys/${this.settings.keyName} derived=true) or name one in VIGIL_ENCRYPTION_KMS_KEY_NAME.`);
    }
  }

  async wrap(dataKey: Buffer, context: string): Promise<string> {
    const data = await this.call('POST', `encrypt/${this.settings.keyName}`, { plaintext: dataKey.toString('base64'), context: Buffer.from(context).toString('base64') });
    if (typeof data.ciphertext !== 'string') throw new KeyCustodyRefused(`The transit server at ${this.settings.endpoint} answered no ciphertext.`);
    return data.ciphertext;
  }

  async unwrap(wrapped: string, context: string): Promise<Buffer> {
    const data = await this.call('POST', `decrypt/${this.settings.keyName}`, { ciphertext: wrapped, context: Buffer.from(context).toString('base64') });
    if (typeof data.plaintext !== 'string') throw new KeyCustodyRefused(`The transit server at ${this.settings.endpoint} answered no plaintext.`);
    return Buffer.from(data.plaintext, 'base64');
  }

  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Record<string, unknown>> {
    const url = `${this.settings.endpoint}/v1/${this.settings.mountPath}/${path}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method, signal: AbortSignal.timeout(TIMEOUT_MS),
        headers: { 'X-Vault-Token': this.settings.token, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    } catch (error) {
      throw new KeyCustodyRefused(`The transit server at ${this.settings.endpoint} cannot be reached: ${(error as Error).message}.`);
    }
    const text = await res.text();
    let parsed: { data?: Record<string, unknown>; errors?: unknown } = {};
    try { parsed = text ? JSON.parse(text) : {}; } catch { /* not JSON */ }
    if (!res.ok || !parsed.data) {
      const errors = Array.isArray(parsed.errors) ? parsed.errors.map(String).join('; ').slice(0, 300) : `status ${res.status}`;
      throw new KeyCustodyRefused(`The transit server refused ${method} ${path}: ${errors}.`);
    }
    return parsed.data;
  }
}
