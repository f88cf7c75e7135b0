import { SubjectLookup } from '../../application/identity/sso-ports';
import { Database } from '../../infrastructure/db/database';

/** The `sso_subjects` read model: which account a subject signs on as, whether an account is bound. */
export class SsoQueries implements SubjectLookup {
  constructor(private readonly db: Database) {}

  async accountOf(subjectKey: string): Promise<number | null> {
    const row = await this.db.knex('sso_subjects').where({ subject_key: subjectKey }).first('account_id');
    return row ? Number(row.account_id) : null;
  }

  async isBound(accountId: number): Promise<boolean> {
    return Boolean(await this.db.knex('sso_subjects').where({ account_id: accountId }).first('account_id'));
  }
}
