import { createHash } from 'node:crypto';
import nacl from 'tweetnacl';
import type { AgentCrypto } from '../../application/agents/ports';

/**
 * Ed25519 signatures and X25519 sealed boxes for the agent protocol, with tweetnacl (ADR 0017).
 *
 * Sealed box (tweetnacl has no crypto_box_seal): a fresh X25519 pair per box; the nonce is the first
 * 24 bytes of SHA-512("vigil-sealed-box/v1" || 0x00 || ephemeral public key || recipient public key ||
 * 0x00 || binding as UTF-8); the box is nacl.box (XSalsa20-Poly1305) of the plaintext under the
 * ephemeral secret and the recipient's public key. Sent as base64(ephemeral public key || box). A box
 * opened under another binding, or another recipient, fails authentication.
 */
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const fromB64 = (text: string) => new Uint8Array(Buffer.from(text, 'base64'));

export function sealNonce(ephemeralPublic: Uint8Array, recipientPublic: Uint8Array, binding: string): Uint8Array {
  const hash = createHash('sha512');
  hash.update('vigil-sealed-box/v1');
  hash.update(Buffer.from([0]));
  hash.update(ephemeralPublic);
  hash.update(recipientPublic);
  hash.update(Buffer.from([0]));
  hash.update(binding, 'utf8');
  return new Uint8Array(hash.digest().subarray(0, nacl.box.nonceLength));
}

export function sealTo(plaintext: Uint8Array, recipientBase64: string, binding: string): string {
  const recipient = fromB64(recipientBase64);
  if (recipient.length !== nacl.box.publicKeyLength) throw new Error('a sealing key is 32 bytes');
  const ephemeral = nacl.box.keyPair();
  const box = nacl.box(plaintext, sealNonce(ephemeral.publicKey, recipient, binding), recipient, ephemeral.secretKey);
  const out = new Uint8Array(ephemeral.publicKey.length + box.length);
  out.set(ephemeral.publicKey, 0);
  out.set(box, ephemeral.publicKey.length);
  return b64(out);
}

/** Opens a sealed box with the recipient's pair; null when it was not sealed to it under this binding. */
export function openSealed(sealedBase64: string, recipient: nacl.BoxKeyPair, binding: string): Uint8Array | null {
  const sealed = fromB64(sealedBase64);
  if (sealed.length < nacl.box.publicKeyLength + nacl.box.overheadLength) return null;
  const ephemeral = sealed.subarray(0, nacl.box.publicKeyLength);
  return nacl.box.open(sealed.subarray(nacl.box.publicKeyLength), sealNonce(ephemeral, recipient.publicKey, binding), ephemeral, recipient.secretKey);
}

/** An Ed25519 private half in base64: the 32-byte seed, or tweetnacl's 64-byte secret key. */
export function signingKeyFrom(privateBase64: string): nacl.SignKeyPair {
  const raw = Buffer.from(privateBase64.trim(), 'base64');
  if (raw.length === nacl.sign.seedLength) return nacl.sign.keyPair.fromSeed(new Uint8Array(raw));
  if (raw.length === nacl.sign.secretKeyLength) return nacl.sign.keyPair.fromSecretKey(new Uint8Array(raw));
  throw new Error('An Ed25519 private half is 32 (seed) or 64 bytes in base64.');
}

export function signDetached(message: Uint8Array, pair: nacl.SignKeyPair): string {
  return b64(nacl.sign.detached(message, pair.secretKey));
}

export class NaclAgentCrypto implements AgentCrypto {
  verify(message: Uint8Array, signatureBase64: string, publicKeyBase64: string): boolean {
    const signature = fromB64(signatureBase64);
    const key = fromB64(publicKeyBase64);
    if (signature.length !== nacl.sign.signatureLength || key.length !== nacl.sign.publicKeyLength) return false;
    return nacl.sign.detached.verify(message, signature, key);
  }

  signingPair(): { publicKey: string; privateKey: string } {
    const seed = nacl.randomBytes(nacl.sign.seedLength);
    const pair = nacl.sign.keyPair.fromSeed(seed);
    return { publicKey: b64(pair.publicKey), privateKey: b64(seed) };
  }

  seal(plaintext: Uint8Array, recipientBase64: string, binding: string): string {
    return sealTo(plaintext, recipientBase64, binding);
  }
}
