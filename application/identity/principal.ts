import { KeyRestriction } from '../../domain/identity/api-key';
import { Role, Scope } from '../../domain/identity/roles';

/** Who is calling: a session (a person) or an integration key acting for its account. */
export interface Principal {
  kind: 'session' | 'key';
  accountId: number;
  username: string;
  displayName: string;
  roles: Role[];
  /** The key's scopes; null for a session, which acts with its account's roles. */
  scopes: Scope[] | null;
  keyId: number | null;
  restriction: KeyRestriction;
}
