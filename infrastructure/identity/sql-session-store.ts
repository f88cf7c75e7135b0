import { Session, SessionStore } from '../../application/identity/ports';
import { Database } from '../db/database';

interface SessionRow { token_hash: string; account_id: number; created_at: string; last_seen_at: string; expires_at: string; ended_at: string | null }

/**
 * Sessions in the `sessions` table (ADR 0004: operational state, not a read model; nothing
 * rebuilds it). Keyed by the SHA-256 of the token; times as ISO texts like every other column.
 */
export class SqlSessionStore implements SessionStore {
  constructor(private readonly db: Database) {}

  async open(tokenHash: string, session: { accountId: number; at: Date; expiresAt: Date }): Promise<void> {
    const at = session.at.toISOString();
    await this.db.knex('sessions').insert({ token_hash: tokenHash, account_id: session.accountId, created_at: at, last_seen_at: at, expires_at: session.expiresAt.toISOString(), ended_at: null });
  }

  async find(tokenHash: string): Promise<Session | null> {
    const row: SessionRow | undefined = await this.db.knex('sessions').where({ token_hash: tokenHash }).first();
    if (!row) return null;
    return { accountId: Number(row.account_id), lastSeenAt: new Date(row.last_seen_at), expiresAt: new Date(row.expires_at), ended: Boolean(row.ended_at) };
  }

  async touch(tokenHash: string, at: Date): Promise<void> {
    await this.db.knex('sessions').where({ token_hash: tokenHash }).update({ last_seen_at: at.toISOString() });
  }

  async end(tokenHash: string, at: Date): Promise<void> {
    await this.db.knex('sessions').where({ token_hash: tokenHash }).update({ ended_at: at.toISOString() });
  }

  async endAllOf(accountId: number, at: Date, keep?: string): Promise<void> {
    const q = this.db.knex('sessions').where({ account_id: accountId }).whereNull('ended_at');
    if (keep !== undefined) q.whereNot({ token_hash: keep });
    await q.update({ ended_at: at.toISOString() });
  }
}
