import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { SecretBoxUnavailable, SecretUnusable } from '../../../application/ports/secret-box';
import { AesGcmSecretBox, keyId } from '../../../infrastructure/crypto/secret-box';

const STREAM = 'credential-7';
const flip = (b64: string, at = 0) => { const b = Buffer.from(b64, 'base64'); b[at] ^= 0x01; return b.toString('base64'); };

describe('AesGcmSecretBox (ENCRYPTION_KEY, trap 6)', () => {
  const key = randomBytes(32);
  const box = new AesGcmSecretBox(key);

  it('seals with AES-256-GCM, a random 96-bit IV and the key id; opens with the same associated data', () => {
    const sealed = box.seal('glpat-very-secret', STREAM);
    expect(sealed.alg).to.equal('A256GCM');
    expect(sealed.kid).to.equal(keyId(key)).and.match(/^[0-9a-f]{16}$/);
    expect(Buffer.from(sealed.iv, 'base64')).to.have.length(12);
    expect(Buffer.from(sealed.tag, 'base64')).to.have.length(16);
    expect(JSON.stringify(sealed)).not.to.contain('glpat-very-secret');
    expect(box.open(sealed, STREAM)).to.equal('glpat-very-secret');
    expect(box.seal('glpat-very-secret', STREAM).iv, 'a fresh IV per seal').not.to.equal(sealed.iv);
  });

  it('refuses a changed ciphertext, tag or IV: credential unusable', () => {
    const sealed = box.seal('token', STREAM);
    for (const tampered of [{ ...sealed, ct: flip(sealed.ct) }, { ...sealed, tag: flip(sealed.tag, 3) }, { ...sealed, iv: flip(sealed.iv, 5) }]) {
      expect(() => box.open(tampered, STREAM)).to.throw(SecretUnusable, /does not authenticate/);
    }
    expect(() => box.open({ ...sealed, tag: sealed.tag.slice(0, 8) }, STREAM)).to.throw(SecretUnusable, /malformed/);
    expect(() => box.open({ ...sealed, alg: 'A128CBC' as never }, STREAM)).to.throw(SecretUnusable);
  });

  it('refuses a value copied into another stream (the stream name is the associated data)', () => {
    const sealed = box.seal('token', STREAM);
    expect(() => box.open(sealed, 'credential-8')).to.throw(SecretUnusable, /copied from elsewhere/);
  });

  it('[S1.8.3-18] opens what an older key sealed when it is among VIGIL_PREVIOUS_ENCRYPTION_KEYS, and seals under the new one', () => {
    const sealedBefore = box.seal('ssh-private-key', STREAM);
    const next = randomBytes(32);
    const rotated = new AesGcmSecretBox(next, [key]);
    expect(rotated.open(sealedBefore, STREAM)).to.equal('ssh-private-key');
    const sealedAfter = rotated.seal('ssh-private-key', STREAM);
    expect(sealedAfter.kid).to.equal(keyId(next));
    expect(() => box.open(sealedAfter, STREAM), 'the old key alone cannot open the new seal').to.throw(SecretUnusable);
  });

  it('[S1.3.1-14] a value whose key is no longer configured is unusable, naming the key id and never the secret', () => {
    const sealed = box.seal('hunter2-token', STREAM);
    const other = new AesGcmSecretBox(randomBytes(32));
    let error: Error | undefined;
    try { other.open(sealed, STREAM); } catch (e) { error = e as Error; }
    expect(error).to.be.instanceOf(SecretUnusable);
    expect(error!.message).to.contain(sealed.kid).and.match(/neither ENCRYPTION_KEY nor VIGIL_PREVIOUS_ENCRYPTION_KEYS/);
    expect(error!.message).not.to.contain('hunter2');
  });

  it('[S1.8.3-09] without ENCRYPTION_KEY nothing can be sealed; previous keys alone still open', () => {
    const none = new AesGcmSecretBox(null);
    expect(none.canSeal).to.equal(false);
    expect(() => none.seal('x', STREAM)).to.throw(SecretBoxUnavailable, /ENCRYPTION_KEY/);
    const sealed = box.seal('still readable', STREAM);
    expect(new AesGcmSecretBox(null, [key]).open(sealed, STREAM)).to.equal('still readable');
  });
});
