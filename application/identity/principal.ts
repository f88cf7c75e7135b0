import { KeyRestriction } from '../../domain/identity/api-key';
import { Role, Scope } from '../../domain/identity/roles';

/** Who is calling: a session (a person) or an integration key acting for its account. */
export interface Principal {
  kind: 'session' | 'key';
  accountId: number;
  username: string;
  displayName: string;
  roles: Role[];
  /**
   * The key's scopes its account's current roles still allow (domain/identity/roles.ts
   * effectiveScopes); null for a session, which acts with its account's roles.
   */
  scopes: Scope[] | null;
  /** Scopes the key was issued with that its account's roles no longer allow. */
  withdrawnScopes: Scope[];
  keyId: number | null;
  restriction: KeyRestriction;
}

/** The 403 detail for a key without the scope a route needs; says so when the account lost it. */
export function missingScopeDetail(principal: Principal, scope: Scope): string {
  if (principal.withdrawnScopes.includes(scope)) {
    return `This key lacks scope ${scope}: its account's roles (${principal.roles.join(', ')}) no longer allow it.`;
  }
  return `This key lacks scope ${scope}.`;
}
