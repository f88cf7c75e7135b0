import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { PasswordHasher } from '../../application/identity/ports';

/** scrypt with per-password salt (trap 6): N=2^15, r=8, p=1, 32-byte key. Stored as text. */
const N = 32768;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, { N: n, r, p, maxmem: 128 * n * r * 2 }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** A hash to compare against when there is none to compare with, so timing does not tell (401 never says why). */
const DUMMY_PASSWORD_HASH = `scrypt$${N}$${R}$${P}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(32).toString('base64')}`;

export class ScryptPasswordHasher implements PasswordHasher {
  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await derive(password, salt, N, R, P);
    return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
  }

  async verify(password: string, stored: string | null): Promise<boolean> {
    const [scheme, n, r, p, salt, key] = (stored ?? DUMMY_PASSWORD_HASH).split('$');
    if (scheme !== 'scrypt') return false;
    const expected = Buffer.from(key, 'base64');
    const actual = await derive(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p));
    // The dummy's key is all zeros: no password derives to it, and a missing hash never matches.
    return stored !== null && actual.length === expected.length && timingSafeEqual(actual, expected);
  }
}
