import { randomBytes } from 'node:crypto';
import { BadgeTokenSource } from '../../application/scorecards/ports';

/** Badge tokens: 32 random bytes, base64url, behind `vgl_b_` so that a leaked one is recognised; only the SHA-256 is stored. */
export const randomBadgeTokens: BadgeTokenSource = {
  newToken: () => `vgl_b_${randomBytes(32).toString('base64url')}`,
};
