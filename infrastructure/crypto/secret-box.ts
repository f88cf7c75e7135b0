import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { SealedSecret, SecretBox, SecretBoxUnavailable, SecretUnusable } from '../../application/ports/secret-box';

const IV_BYTES = 12; // 96 bits: GCM's native nonce size, random per seal
const TAG_BYTES = 16;
const B64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** First 8 bytes of the key's SHA-256, hex: names the key beside the ciphertext without revealing it. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest().subarray(0, 8).toString('hex');
}

/**
 * AES-256-GCM with node:crypto (issue #4): a random 96-bit IV per seal, the caller's associated data
 * (the stream name) authenticated, the key id stored with the ciphertext. ENCRYPTION_KEY seals and
 * opens; VIGIL_PREVIOUS_ENCRYPTION_KEYS only open, so a rotation keeps what was sealed before
 * readable until it is sealed again (PUT on the credential).
 */
export class AesGcmSecretBox implements SecretBox {
  private readonly current: { id: string; key: Buffer } | null;
  private readonly keys = new Map<string, Buffer>();

  constructor(current: Buffer | null, previous: readonly Buffer[] = []) {
    for (const key of [current, ...previous]) {
      if (key && key.length !== 32) throw new Error('An encryption key is 32 bytes.');
      if (key && !this.keys.has(keyId(key))) this.keys.set(keyId(key), key);
    }
    this.current = current ? { id: keyId(current), key: current } : null;
  }

  get canSeal(): boolean {
    return this.current !== null;
  }

  seal(plaintext: string, associatedData: string): SealedSecret {
    if (!this.current) throw new SecretBoxUnavailable();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { alg: 'A256GCM', kid: this.current.id, iv: iv.toString('base64'), ct: ct.toString('base64'), tag: cipher.getAuthTag().toString('base64') };
  }

  open(sealed: SealedSecret, associatedData: string): string {
    if (sealed?.alg !== 'A256GCM' || ![sealed.iv, sealed.ct, sealed.tag].every((v) => typeof v === 'string' && B64.test(v))) {
      throw new SecretUnusable('the sealed value is not AES-256-GCM as Vigil writes it');
    }
    const key = this.keys.get(sealed.kid);
    if (!key) {
      throw new SecretUnusable(`it was sealed under key ${sealed.kid}, which neither ENCRYPTION_KEY nor VIGIL_PREVIOUS_ENCRYPTION_KEYS holds${this.keys.size ? '' : ' (none is configured)'}`);
    }
    const iv = Buffer.from(sealed.iv, 'base64');
    const tag = Buffer.from(sealed.tag, 'base64');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretUnusable('the sealed value has a malformed IV or tag');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(associatedData, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(sealed.ct, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      // GCM does not say why: a changed byte, another stream's value, or another key with a colliding id.
      throw new SecretUnusable(`it does not authenticate under key ${sealed.kid} for this stream (altered, or copied from elsewhere)`);
    }
  }
}
