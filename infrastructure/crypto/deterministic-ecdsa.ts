import { createECDH, createHmac, randomBytes } from 'node:crypto';

/**
 * ECDSA P-256 over a SHA-256 digest with the nonce derived from the key and the digest (RFC 6979,
 * section 3.2), so that the same bytes always get the same signature. Why: an evidence bundle holds
 * its documents' signatures, and two bundles generated for the same as_of must be the same bytes
 * (issue #11); node:crypto's ECDSA draws a random nonce and Node 20's OpenSSL 3.0 cannot be asked
 * for RFC 6979. Verifiers see ordinary ECDSA: `openssl dgst -sha256 -verify` checks it as any other.
 *
 * Only the nonce derivation (HMAC-SHA-256, node:crypto) and the final scalar arithmetic are here:
 * the point multiplication k·G is OpenSSL's (ECDH with k as private key gives k·G as public key).
 * The inversion of k is blinded by a random factor that cancels out, so its timing says nothing of
 * k; the result is the same whatever the factor. Proven against RFC 6979 A.2.5's vectors
 * (spec/infrastructure/crypto/deterministic-ecdsa.spec.ts).
 */
const N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const SIZE = 32;

const toInt = (b: Buffer) => BigInt(`0x${b.toString('hex') || '0'}`);
const toOctets = (x: bigint) => Buffer.from(x.toString(16).padStart(SIZE * 2, '0'), 'hex');
const mod = (a: bigint) => ((a % N) + N) % N;

function invert(a: bigint): bigint {
  // Extended Euclid; a is blinded by the caller.
  let [r0, r1] = [mod(a), N];
  let [s0, s1] = [1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  if (r0 !== 1n) throw new Error('not invertible');
  return mod(s0);
}

/** Candidate nonces of RFC 6979 section 3.2 for qlen = hlen = 256 (steps b to h), in order. */
function* nonces(privateKey: Buffer, digest: Buffer): Generator<bigint> {
  const hmac = (key: Buffer, ...parts: Buffer[]) => { const h = createHmac('sha256', key); for (const p of parts) h.update(p); return h.digest(); };
  const x = privateKey;
  const h1 = toOctets(mod(toInt(digest)));
  let v = Buffer.alloc(SIZE, 1);
  let k = Buffer.alloc(SIZE, 0);
  k = hmac(k, v, Buffer.of(0), x, h1);
  v = hmac(k, v);
  k = hmac(k, v, Buffer.of(1), x, h1);
  v = hmac(k, v);
  for (;;) {
    v = hmac(k, v);
    const candidate = toInt(v);
    if (candidate >= 1n && candidate < N) yield candidate;
    k = hmac(k, v, Buffer.of(0));
    v = hmac(k, v);
  }
}

/** DER INTEGER of a non-negative value: minimal, a leading zero when the high bit is set. */
function derInteger(x: bigint): Buffer {
  let bytes = toOctets(x);
  while (bytes.length > 1 && bytes[0] === 0 && (bytes[1] & 0x80) === 0) bytes = bytes.subarray(1);
  if (bytes[0] & 0x80) bytes = Buffer.concat([Buffer.of(0), bytes]);
  return Buffer.concat([Buffer.of(0x02, bytes.length), bytes]);
}

/** The (r, s) of RFC 6979 for a 32-byte private scalar and a SHA-256 digest. */
export function deterministicSignature(privateKey: Buffer, digest: Buffer): { r: bigint; s: bigint } {
  if (privateKey.length !== SIZE || digest.length !== SIZE) throw new Error('P-256 with SHA-256 takes a 32-byte key and a 32-byte digest.');
  const d = toInt(privateKey);
  const e = toInt(digest);
  for (const k of nonces(privateKey, digest)) {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(toOctets(k));
    const point = ecdh.getPublicKey(); // 0x04 || X || Y
    const r = mod(toInt(point.subarray(1, 1 + SIZE)));
    if (r === 0n) continue;
    const blind = mod(toInt(randomBytes(SIZE))) || 1n;
    const s = mod(invert(mod(k * blind)) * mod(blind * mod(e + r * d)));
    if (s === 0n) continue;
    return { r, s };
  }
  throw new Error('unreachable');
}

/** The signature in ASN.1 DER (SEQUENCE of two INTEGERs), as OpenSSL writes and reads it. */
export function deterministicDerSignature(privateKey: Buffer, digest: Buffer): Buffer {
  const { r, s } = deterministicSignature(privateKey, digest);
  const body = Buffer.concat([derInteger(r), derInteger(s)]);
  return Buffer.concat([Buffer.of(0x30, body.length), body]);
}
