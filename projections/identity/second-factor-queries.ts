import { SecondFactorLookup } from '../../application/identity/sso-ports';
import { Database } from '../../infrastructure/db/database';

/** The `second_factors` read model. */
export class SecondFactorQueries implements SecondFactorLookup {
  constructor(private readonly db: Database) {}

  async hasSecondFactor(accountId: number): Promise<boolean> {
    return (await this.of(accountId)).status === 'active';
  }

  /** What GET /me/second-factor shows: none, pending (begun, not confirmed) or active, and the backup codes left. */
  async of(accountId: number): Promise<{ status: 'none' | 'pending' | 'active'; backupCodesLeft: number }> {
    const row = await this.db.knex('second_factors').where({ account_id: accountId }).first();
    return row ? { status: row.status, backupCodesLeft: Number(row.backup_codes_left) } : { status: 'none', backupCodesLeft: 0 };
  }
}
