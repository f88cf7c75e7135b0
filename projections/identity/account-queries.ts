import { AccountCredentials, AccountLookup, AccountView } from '../../application/identity/ports';
import { Role } from '../../domain/identity/roles';
import { refuse } from '../../domain/shared/decider';
import { Database } from '../../infrastructure/db/database';

interface AccountRow {
  id: number; username: string; display_name: string; roles: string; active: boolean | number; password_hash: string | null; created_at: string; updated_at: string;
}

export function accountView(row: AccountRow): AccountView {
  return { id: Number(row.id), username: row.username, displayName: row.display_name, roles: JSON.parse(row.roles) as Role[], active: Boolean(row.active), createdAt: row.created_at, updatedAt: row.updated_at };
}

function credentials(row: AccountRow | undefined): AccountCredentials | null {
  return row ? { account: accountView(row), passwordHash: row.password_hash } : null;
}

/** The `accounts` read model: the administrator's list, one account (GET /me), and the lookups of sign-in. */
export class AccountQueries implements AccountLookup {
  constructor(private readonly db: Database) {}

  async list(): Promise<AccountView[]> {
    const rows: AccountRow[] = await this.db.knex('accounts').orderBy('id');
    return rows.map(accountView);
  }

  /** Up to `limit` + 1 accounts after the id `after` (the route pages with the extra one). */
  async page(limit: number, after: number): Promise<AccountView[]> {
    const rows: AccountRow[] = await this.db.knex('accounts').where('id', '>', after).orderBy('id').limit(limit + 1);
    return rows.map(accountView);
  }

  async get(id: number): Promise<AccountView> {
    const row: AccountRow | undefined = await this.db.knex('accounts').where({ id }).first();
    if (!row) throw refuse.notFound('No such account.');
    return accountView(row);
  }

  async count(): Promise<number> {
    const row = await this.db.knex('accounts').count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  }

  async byUsername(username: string): Promise<AccountCredentials | null> {
    return credentials(await this.db.knex('accounts').where({ username_key: username.toLowerCase() }).first());
  }

  async byId(id: number): Promise<AccountCredentials | null> {
    return credentials(await this.db.knex('accounts').where({ id }).first());
  }
}
