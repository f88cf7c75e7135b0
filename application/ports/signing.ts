/**
 * The platform signing key (spec 1 §1.9, §8.3): ECDSA P-256 over SHA-256. The application never
 * sees how it is made; infrastructure/crypto/ecdsa-keys.ts implements it with node:crypto.
 */
export interface PlatformKey {
  /** SubjectPublicKeyInfo in PEM: what GET /crypto/public-key.pub serves. */
  readonly publicKeyPem: string;
  /** SHA-256 in hex of the DER SubjectPublicKeyInfo (`openssl pkey -pubin -outform DER | sha256sum`). */
  readonly fingerprint: string;
  /** An incremental signature: feed the document's bytes, then take the DER ECDSA-SHA256 signature. */
  signer(): DocumentSigner;
}

export interface DocumentSigner {
  update(chunk: Buffer): void;
  /** ASN.1 DER ECDSA signature over SHA-256 of every chunk fed, as `openssl dgst -sha256 -verify` reads it. */
  sign(): Buffer;
}

export interface SigningKeyMaterial {
  /** A fresh P-256 key pair; answers the private half in PKCS#8 PEM. */
  generate(): string;
  /** A key from its PKCS#8 PEM (throws when it is not a P-256 key). */
  load(privatePem: string): PlatformKey;
}
