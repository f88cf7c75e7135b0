import { ChallengeStore } from '../../application/identity/sso-ports';
import { affectedRows, Database } from '../db/database';

/** Second-factor challenges and used TOTP steps (v027): operational state shared by every instance. */
export class SqlChallengeStore implements ChallengeStore {
  constructor(private readonly db: Database) {}

  async open(challengeHash: string, accountId: number, expiresAt: Date): Promise<void> {
    await this.db.knex('second_factor_challenges').where('expires_at', '<', new Date().toISOString()).delete();
    await this.db.knex('second_factor_challenges').insert({ challenge_hash: challengeHash, account_id: accountId, failures: 0, expires_at: expiresAt.toISOString() });
  }

  async find(challengeHash: string, now: Date): Promise<{ accountId: number; failures: number } | null> {
    const row = await this.db.knex('second_factor_challenges').where({ challenge_hash: challengeHash }).first();
    if (!row || Date.parse(row.expires_at) <= now.getTime()) return null;
    return { accountId: Number(row.account_id), failures: Number(row.failures) };
  }

  async fail(challengeHash: string): Promise<number> {
    // One statement counts: parallel wrong codes cannot slip past the ceiling.
    await this.db.knex('second_factor_challenges').where({ challenge_hash: challengeHash }).increment('failures', 1);
    const row = await this.db.knex('second_factor_challenges').where({ challenge_hash: challengeHash }).first('failures');
    return Number(row?.failures ?? Number.MAX_SAFE_INTEGER);
  }

  async close(challengeHash: string): Promise<boolean> {
    return affectedRows(await this.db.knex('second_factor_challenges').where({ challenge_hash: challengeHash }).delete()) === 1;
  }

  async closeAllOf(accountId: number): Promise<void> {
    await this.db.knex('second_factor_challenges').where({ account_id: accountId }).delete();
  }

  async takeStep(accountId: number, step: number): Promise<boolean> {
    const moved = affectedRows(await this.db.knex('second_factor_used_steps').where({ account_id: accountId }).where('step', '<', step).update({ step }));
    if (moved === 1) return true;
    try {
      await this.db.knex('second_factor_used_steps').insert({ account_id: accountId, step });
      return true;
    } catch (error) {
      // A row exists with this step or a later one: the code was used.
      if (await this.db.knex('second_factor_used_steps').where({ account_id: accountId }).first()) return false;
      throw error;
    }
  }
}
