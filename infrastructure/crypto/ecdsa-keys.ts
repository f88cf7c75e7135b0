import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject } from 'node:crypto';
import type { DocumentSigner, PlatformKey, SigningKeyMaterial } from '../../application/ports/signing';
import { deterministicDerSignature } from './deterministic-ecdsa';

/**
 * ECDSA P-256: keys and hashing by node:crypto, the signature in DER as OpenSSL writes and reads it, its
 * nonce derived as RFC 6979 says (deterministic-ecdsa.ts): the same bytes always get the same signature.
 */
export class EcdsaKeyMaterial implements SigningKeyMaterial {
  generate(): string {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    return privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  }

  load(privatePem: string): PlatformKey {
    const key = createPrivateKey({ key: privatePem, format: 'pem' });
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') throw new Error('The platform key is not an ECDSA P-256 key.');
    return new EcdsaPlatformKey(key);
  }
}

class EcdsaPlatformKey implements PlatformKey {
  readonly publicKeyPem: string;
  readonly fingerprint: string;

  /** The private scalar (32 bytes), for the deterministic nonce. */
  private readonly scalar: Buffer;

  constructor(key: KeyObject) {
    const d = key.export({ format: 'jwk' }).d;
    if (!d) throw new Error('The platform key has no private scalar.');
    this.scalar = Buffer.from(d, 'base64url');
    const pub = createPublicKey(key);
    this.publicKeyPem = pub.export({ format: 'pem', type: 'spki' }).toString();
    this.fingerprint = createHash('sha256').update(pub.export({ format: 'der', type: 'spki' })).digest('hex');
  }

  signer(): DocumentSigner {
    const hash = createHash('sha256');
    return {
      update: (chunk) => { hash.update(chunk); },
      sign: () => deterministicDerSignature(this.scalar, hash.digest()),
    };
  }
}
