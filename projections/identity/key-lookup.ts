import { KeyLookup } from '../../application/sources/ports';
import { Database } from '../../infrastructure/db/database';

/** An integration key's revocation and expiry, from `api_keys` (this projection's table), for the declared sources. */
export class SqlKeyLookup implements KeyLookup {
  constructor(private readonly db: Database) {}

  async keyStatus(apiKeyId: number): Promise<{ revokedAt: string | null; expiresAt: string | null } | null> {
    const row: { revoked_at: string | null; expires_at: string | null } | undefined = await this.db.knex('api_keys').where({ id: apiKeyId }).select('revoked_at', 'expires_at').first();
    return row ? { revokedAt: row.revoked_at, expiresAt: row.expires_at } : null;
  }
}
