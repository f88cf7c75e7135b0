import { expect } from 'chai';
import { isSessionSecret, SECRET_PREFIX } from '../../../domain/identity/bearer-secret';
import { RandomSecretMinter } from '../../../infrastructure/crypto/random-secret-minter';

describe('RandomSecretMinter', () => {
  it('mints 32 random bytes after the readable prefix of its kind', () => {
    const minter = new RandomSecretMinter();
    const key = minter.newSecret('key');
    const session = minter.newSecret('session');
    expect(key.startsWith(SECRET_PREFIX.key)).to.equal(true);
    expect(isSessionSecret(session)).to.equal(true);
    expect(isSessionSecret(key)).to.equal(false);
    expect(Buffer.from(key.slice(SECRET_PREFIX.key.length), 'base64url')).to.have.length(32);
    expect(minter.newSecret('key')).not.to.equal(key);
  });
});
