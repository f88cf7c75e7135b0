import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { TotpCodes } from '../../application/identity/sso-ports';

/** Crockford's base32 alphabet without I, L, O, U: backup codes read aloud or typed without confusion. */
const READABLE = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * TOTP as authenticator apps compute it (SHA-1, 6 digits, 30 s: what every app supports) through
 * otpauth; a 160-bit secret (RFC 4226 §4); backup codes of 60 random bits.
 */
export class OtpauthTotp implements TotpCodes {
  newSecret(): string {
    return new Secret({ size: 20 }).base32;
  }

  uri(secret: string, issuer: string, label: string): string {
    return this.totp(secret, issuer, label).toString();
  }

  stepOf(secret: string, code: string, now: Date): number | null {
    if (!/^\d{6}$/.test(code)) return null;
    const delta = this.totp(secret).validate({ token: code, timestamp: now.getTime(), window: 1 });
    return delta === null ? null : Math.floor(now.getTime() / 30_000) + delta;
  }

  newBackupCodes(count: number): string[] {
    return Array.from({ length: count }, () => {
      const chars = [...randomBytes(12)].map((b) => READABLE[b & 31]).join('');
      return `${chars.slice(0, 5)}-${chars.slice(5, 10)}-${chars.slice(10, 12)}`;
    });
  }

  newChallenge(): string {
    return `vgl_c_${randomBytes(32).toString('base64url')}`;
  }

  private totp(secret: string, issuer = 'Vigil', label = 'account'): TOTP {
    return new TOTP({ issuer, label, algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });
  }
}
