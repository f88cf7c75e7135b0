import { PendingSignOn, SignOnStore } from '../../application/identity/sso-ports';
import { affectedRows, Database } from '../db/database';

/**
 * Sign-ons under way and exchanged ID tokens (v026): operational state like `sessions` (ADR 0004),
 * shared by every instance behind a balancer; expired rows are removed as new ones come.
 */
export class SqlSignOnStore implements SignOnStore {
  constructor(private readonly db: Database) {}

  async put(stateHash: string, p: PendingSignOn): Promise<void> {
    await this.db.knex('sso_pending_sign_ons').where('expires_at', '<', new Date().toISOString()).delete();
    await this.db.knex('sso_pending_sign_ons').insert({
      state_hash: stateHash, browser_hash: p.browserHash, nonce: p.nonce, code_verifier: p.codeVerifier, redirect_uri: p.redirectUri, expires_at: p.expiresAt.toISOString(),
    });
  }

  async take(stateHash: string, now: Date): Promise<PendingSignOn | null> {
    const row = await this.db.knex('sso_pending_sign_ons').where({ state_hash: stateHash }).first();
    if (!row) return null;
    // Only the request that deletes the row goes on: a state is used once, even by racing callbacks.
    const deleted = await this.db.knex('sso_pending_sign_ons').where({ state_hash: stateHash }).delete();
    if (affectedRows(deleted) !== 1 || Date.parse(row.expires_at) <= now.getTime()) return null;
    return { browserHash: row.browser_hash, nonce: row.nonce, codeVerifier: row.code_verifier, redirectUri: row.redirect_uri, expiresAt: new Date(row.expires_at) };
  }

  async markExchanged(tokenHash: string, expiresAt: Date, now: Date): Promise<boolean> {
    await this.db.knex('sso_exchanged_tokens').where('expires_at', '<', now.toISOString()).delete();
    try {
      await this.db.knex('sso_exchanged_tokens').insert({ token_hash: tokenHash, expires_at: expiresAt.toISOString() });
      return true;
    } catch (error) {
      // The primary key refused it: exchanged before (the same text on every engine).
      if (await this.db.knex('sso_exchanged_tokens').where({ token_hash: tokenHash }).first()) return false;
      throw error;
    }
  }
}
