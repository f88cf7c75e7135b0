import type { UserFilter } from '../../domain/identity/scim';
import { Database } from '../../infrastructure/db/database';

export interface ScimUserRow {
  id: number;
  userName: string;
  displayName: string;
  active: boolean;
  externalId: string | null;
  created: string;
  lastModified: string;
}

/**
 * What SCIM reads (issue #14): the current SCIM token's hash, and the accounts the provider
 * provisions (scim_users joined with accounts). Accounts made in Vigil and never provisioned are
 * not SCIM resources: the provider cannot see or change them, except by binding one under the
 * linking rules (application/identity/scim-service.ts).
 */
export class ScimQueries {
  constructor(private readonly db: Database) {}

  /** The current SCIM token's hash and the administrator who issued it (SCIM acts in that name). */
  async token(): Promise<{ hash: string; issuedBy: number | null } | null> {
    const row = await this.db.knex('scim_tokens').where({ id: 1 }).first('token_hash', 'issued_by');
    return row ? { hash: row.token_hash, issuedBy: row.issued_by === null ? null : Number(row.issued_by) } : null;
  }

  async isProvisioned(accountId: number): Promise<boolean> {
    return Boolean(await this.db.knex('scim_users').where({ account_id: accountId }).first('account_id'));
  }

  async user(accountId: number): Promise<ScimUserRow | null> {
    const row = await this.base().where('a.id', accountId).first();
    return row ? view(row) : null;
  }

  /** One page (startIndex from 1) of the provisioned accounts, with the filter, by id; and how many match. */
  async users(filter: UserFilter | null, startIndex: number, count: number): Promise<{ total: number; rows: ScimUserRow[] }> {
    const where = (q: ReturnType<ScimQueries['base']>) => {
      if (filter?.attribute === 'userName') q.where('a.username_key', filter.value.toLowerCase());
      if (filter?.attribute === 'externalId') q.where('s.external_id', filter.value);
      return q;
    };
    const total = Number((await where(this.db.knex('scim_users as s').join('accounts as a', 'a.id', 's.account_id')).count({ n: '*' }).first())?.n ?? 0);
    const rows = count === 0 ? [] : await where(this.base()).orderBy('a.id').offset(startIndex - 1).limit(count);
    return { total, rows: rows.map(view) };
  }

  private base() {
    return this.db.knex('scim_users as s').join('accounts as a', 'a.id', 's.account_id')
      .select('a.id', 'a.username', 'a.display_name', 'a.active', 'a.created_at', 'a.updated_at', 's.external_id');
  }
}

function view(row: Record<string, any>): ScimUserRow {
  return {
    id: Number(row.id), userName: row.username, displayName: row.display_name, active: Boolean(row.active), externalId: row.external_id ?? null,
    created: row.created_at, lastModified: row.updated_at,
  };
}
