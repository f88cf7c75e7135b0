import { expect } from 'chai';
import { ScryptPasswordHasher } from '../../../infrastructure/crypto/scrypt-password-hasher';

describe('ScryptPasswordHasher (trap 6)', () => {
  const hasher = new ScryptPasswordHasher();

  it('hashes with scrypt and a salt of its own per password; verifies the right password only', async () => {
    const stored = await hasher.hash('a-long-enough-password');
    expect(stored).to.match(/^scrypt\$32768\$8\$1\$/);
    expect(stored).not.to.contain('a-long-enough-password');
    expect(await hasher.hash('a-long-enough-password'), 'a fresh salt per hash').not.to.equal(stored);
    expect(await hasher.verify('a-long-enough-password', stored)).to.equal(true);
    expect(await hasher.verify('a-long-enough-passwore', stored)).to.equal(false);
  });

  it('refuses every password when there is no hash (compared against a dummy, so timing does not tell) or an unknown scheme', async () => {
    expect(await hasher.verify('', null)).to.equal(false);
    expect(await hasher.verify('a-long-enough-password', null)).to.equal(false);
    expect(await hasher.verify('a-long-enough-password', 'bcrypt$whatever')).to.equal(false);
  });
});
