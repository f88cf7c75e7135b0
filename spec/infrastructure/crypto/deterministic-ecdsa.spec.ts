import { expect } from 'chai';
import { createHash, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { deterministicDerSignature, deterministicSignature } from '../../../infrastructure/crypto/deterministic-ecdsa';
import { EcdsaKeyMaterial } from '../../../infrastructure/crypto/ecdsa-keys';

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
const hex = (x: bigint) => x.toString(16).padStart(64, '0').toUpperCase();

// RFC 6979 appendix A.2.5 (ECDSA, 256 bits, prime field), key and the SHA-256 signatures of "sample" and "test".
const X = Buffer.from('C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721', 'hex');
const UX = '60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6';
const UY = '7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299';

describe('deterministic ECDSA P-256 (RFC 6979): the same bytes get the same signature (issue #11, evidence bundles as of an instant)', () => {
  it('gives the signatures of RFC 6979 A.2.5 for "sample" and "test" with SHA-256', () => {
    expect(deterministicSignature(X, digest('sample'))).to.deep.equal({
      r: BigInt('0xEFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716'),
      s: BigInt('0xF7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8'),
    });
    const test = deterministicSignature(X, digest('test'));
    expect([hex(test.r), hex(test.s)]).to.deep.equal([
      'F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367',
      '019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083',
    ]);
  });

  it('is DER that node:crypto (OpenSSL) verifies with the public key, for the RFC key and for fresh keys', () => {
    const rfcPublic = createPublicKey({ format: 'jwk', key: { kty: 'EC', crv: 'P-256', x: Buffer.from(UX, 'hex').toString('base64url'), y: Buffer.from(UY, 'hex').toString('base64url') } });
    expect(verify('sha256', Buffer.from('sample'), { key: rfcPublic, dsaEncoding: 'der' }, deterministicDerSignature(X, digest('sample')))).to.equal(true);
    for (let i = 0; i < 20; i++) {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
      const scalar = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
      const message = Buffer.from(`document ${i}`);
      const signature = deterministicDerSignature(scalar, createHash('sha256').update(message).digest());
      expect(verify('sha256', message, { key: publicKey, dsaEncoding: 'der' }, signature), `key ${i}`).to.equal(true);
      expect(verify('sha256', Buffer.from('another'), { key: publicKey, dsaEncoding: 'der' }, signature)).to.equal(false);
    }
  });

  it('the platform key signs the same bytes with the same signature, fed in any pieces, and other bytes differently', () => {
    const material = new EcdsaKeyMaterial();
    const key = material.load(material.generate());
    const sign = (...pieces: string[]) => { const s = key.signer(); for (const p of pieces) s.update(Buffer.from(p)); return s.sign(); };
    const once = sign('{"a":', '1}');
    expect(sign('{"a":1}').equals(once)).to.equal(true);
    expect(sign('{"a":2}').equals(once)).to.equal(false);
    expect(verify('sha256', Buffer.from('{"a":1}'), { key: createPublicKey(key.publicKeyPem), dsaEncoding: 'der' }, once)).to.equal(true);
  });
});
