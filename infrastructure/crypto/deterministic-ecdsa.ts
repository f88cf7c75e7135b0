import { p256 } from '@noble/curves/nist';

/**
 * ECDSA P-256 over a SHA-256 digest with the nonce derived from the key and the digest (RFC 6979),
 * so that the same bytes always get the same signature. Why: an evidence bundle holds its
 * documents' signatures, and two bundles generated for the same as_of must be the same bytes
 * (issue #11); node:crypto's ECDSA draws a random nonce and Node 20's OpenSSL 3.0 cannot be asked
 * for RFC 6979. The curve arithmetic is @noble/curves' (audited, constant-time, RFC 6979 by
 * default), not written here. Verifiers see ordinary ECDSA: `openssl dgst -sha256 -verify` checks it.
 * Signatures are not normalised to low S: P-256 verifiers accept both, and RFC 6979's own vectors
 * are not normalised (spec/infrastructure/crypto/deterministic-ecdsa.spec.ts walks them).
 */
const SIZE = 32;

/** The (r, s) of RFC 6979 for a 32-byte private scalar and a SHA-256 digest. */
export function deterministicSignature(privateKey: Buffer, digest: Buffer): { r: bigint; s: bigint } {
  if (privateKey.length !== SIZE || digest.length !== SIZE) throw new Error('P-256 with SHA-256 takes a 32-byte key and a 32-byte digest.');
  const { r, s } = p256.sign(digest, privateKey, { lowS: false, prehash: false });
  return { r, s };
}

/** The signature in ASN.1 DER (SEQUENCE of two INTEGERs), as OpenSSL writes and reads it. */
export function deterministicDerSignature(privateKey: Buffer, digest: Buffer): Buffer {
  if (privateKey.length !== SIZE || digest.length !== SIZE) throw new Error('P-256 with SHA-256 takes a 32-byte key and a 32-byte digest.');
  return Buffer.from(p256.sign(digest, privateKey, { lowS: false, prehash: false }).toDERRawBytes());
}
