import { createHash, createPrivateKey, createPublicKey, createSign, generateKeyPairSync, KeyObject } from 'node:crypto';
import type { DocumentSigner, PlatformKey, SigningKeyMaterial } from '../../application/ports/signing';

/** ECDSA P-256 with node:crypto: no library, the signature in DER as OpenSSL writes and reads it. */
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

  constructor(private readonly key: KeyObject) {
    const pub = createPublicKey(key);
    this.publicKeyPem = pub.export({ format: 'pem', type: 'spki' }).toString();
    this.fingerprint = createHash('sha256').update(pub.export({ format: 'der', type: 'spki' })).digest('hex');
  }

  signer(): DocumentSigner {
    const sign = createSign('sha256');
    return {
      update: (chunk) => { sign.update(chunk); },
      sign: () => sign.sign({ key: this.key, dsaEncoding: 'der' }),
    };
  }
}
