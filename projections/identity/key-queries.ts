import { Principal } from '../../application/identity/principal';
import { KeyHolder, KeyLookup } from '../../application/identity/ports';
import { isAdministrator, Scope } from '../../domain/identity/roles';
import { refuse } from '../../domain/shared/decider';
import type { TargetKind } from '../../domain/shared/target-kind';
import { Database } from '../../infrastructure/db/database';
import { preparedRows } from '../../infrastructure/db/prepared';

interface ApiKeyRow {
  id: number; account_id: number; name: string; scopes: string; key_hash: string; key_prefix: string;
  restriction_kind: TargetKind | null; restriction_id: number | null; expires_at: string | null; revoked_at: string | null; revoked_reason: string | null; created_at: string;
}

/** A key as its holder sees it; `now` decides whether it has expired. */
export function apiKeyView(row: ApiKeyRow, now: Date) {
  const expired = row.expires_at !== null && Date.parse(row.expires_at) <= now.getTime();
  return {
    id: Number(row.id), name: row.name, accountId: Number(row.account_id), scopes: JSON.parse(row.scopes) as Scope[], prefix: row.key_prefix,
    restriction: row.restriction_kind ? { kind: row.restriction_kind, id: Number(row.restriction_id) } : null,
    expiresAt: row.expires_at, createdAt: row.created_at, revokedAt: row.revoked_at, revokedReason: row.revoked_reason,
    state: row.revoked_at ? 'revoked' : expired ? 'expired' : 'active',
  };
}

type KeyAndAccount = Pick<ApiKeyRow, 'id' | 'account_id' | 'scopes' | 'restriction_kind' | 'restriction_id' | 'expires_at' | 'revoked_at'>
  & { username: string; display_name: string; roles: string; active: boolean | number };

/** Key and account in one statement, prepared once per connection: every pipeline call starts here. */
const KEY_AND_ACCOUNT = 'SELECT k.id, k.account_id, k.scopes, k.restriction_kind, k.restriction_id, k.expires_at, k.revoked_at, a.username, a.display_name, a.roles, a.active'
  + ' FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?';

/** The `api_keys` read model: the keys a caller may list, and the lookups of authentication and revocation. */
export class KeyQueries implements KeyLookup {
  constructor(private readonly db: Database) {}

  /** The caller's keys; every key for an administrator. */
  async list(caller: Pick<Principal, 'accountId' | 'roles'>, now: Date) {
    const q = this.db.knex('api_keys').orderBy('id');
    if (!isAdministrator(caller.roles)) q.where({ account_id: caller.accountId });
    const rows: ApiKeyRow[] = await q;
    return rows.map((r) => apiKeyView(r, now));
  }

  /** Up to `limit` + 1 keys after the id `after`: the caller's own, every key for an administrator. */
  async page(caller: Pick<Principal, 'accountId' | 'roles'>, now: Date, limit: number, after: number) {
    const q = this.db.knex('api_keys').where('id', '>', after).orderBy('id').limit(limit + 1);
    if (!isAdministrator(caller.roles)) q.where({ account_id: caller.accountId });
    const rows: ApiKeyRow[] = await q;
    return rows.map((r) => apiKeyView(r, now));
  }

  async get(id: number, now: Date) {
    const row: ApiKeyRow | undefined = await this.db.knex('api_keys').where({ id }).first();
    if (!row) throw refuse.notFound('No such key.');
    return apiKeyView(row, now);
  }

  async byHash(keyHash: string): Promise<KeyHolder | null> {
    const [key] = await preparedRows<KeyAndAccount>(this.db, 'vigil_authenticate_key', KEY_AND_ACCOUNT, [keyHash]);
    if (!key) return null;
    return {
      keyId: Number(key.id), scopes: JSON.parse(key.scopes), restriction: key.restriction_kind ? { kind: key.restriction_kind, id: Number(key.restriction_id) } : null,
      expiresAt: key.expires_at, revoked: Boolean(key.revoked_at),
      account: { id: Number(key.account_id), username: key.username, displayName: key.display_name, roles: JSON.parse(key.roles), active: Boolean(key.active) },
    };
  }

  async ownerOf(keyId: number): Promise<number | null> {
    const row: Pick<ApiKeyRow, 'account_id'> | undefined = await this.db.knex('api_keys').where({ id: keyId }).first('account_id');
    return row ? Number(row.account_id) : null;
  }

  async activeKeysOf(accountId: number): Promise<number[]> {
    return this.activeIds({ account_id: accountId });
  }

  async activeKeysRestrictedTo(kind: TargetKind, targetId: number): Promise<number[]> {
    return this.activeIds({ restriction_kind: kind, restriction_id: targetId });
  }

  private async activeIds(where: Record<string, unknown>): Promise<number[]> {
    const rows: { id: number }[] = await this.db.knex('api_keys').where(where).whereNull('revoked_at').orderBy('id').select('id');
    return rows.map((r) => Number(r.id));
  }
}
