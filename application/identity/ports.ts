import type { SecretKind } from '../../domain/identity/bearer-secret';
import type { KeyRestriction } from '../../domain/identity/api-key';
import type { Role, Scope } from '../../domain/identity/roles';
import type { GrantKind } from '../../domain/identity/team';
import type { TargetKind } from '../../domain/shared/target-kind';

/** An account as the API shows it (never its password hash). */
export interface AccountView {
  id: number;
  username: string;
  displayName: string;
  roles: Role[];
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

/** An account with its password hash: what sign-in and a password check compare against. */
export interface AccountCredentials {
  account: AccountView;
  passwordHash: string | null;
}

/** The accounts read model as the identity commands look things up (projections/identity/account-queries.ts). */
export interface AccountLookup {
  count(): Promise<number>;
  /** By the name typed at sign-in, case-insensitively; null when no account has it. */
  byUsername(username: string): Promise<AccountCredentials | null>;
  byId(id: number): Promise<AccountCredentials | null>;
}

/** An integration key found by the hash of its secret, with its account (one statement: every pipeline call starts here). */
export interface KeyHolder {
  keyId: number;
  scopes: Scope[];
  restriction: KeyRestriction;
  expiresAt: string | null;
  revoked: boolean;
  account: { id: number; username: string; displayName: string; roles: Role[]; active: boolean };
}

/** The integration keys read model as the identity commands look things up (projections/identity/key-queries.ts). */
export interface KeyLookup {
  byHash(keyHash: string): Promise<KeyHolder | null>;
  /** The account that holds the key; null when there is no such key. */
  ownerOf(keyId: number): Promise<number | null>;
  /** Keys not yet revoked, of an account or restricted to one target. */
  activeKeysOf(accountId: number): Promise<number[]>;
  activeKeysRestrictedTo(kind: TargetKind, targetId: number): Promise<number[]>;
}

/**
 * What a team grant or a key restriction may name, read from the targets read model: a target's
 * project (for visibility), whether a project or a target exists.
 */
export interface GrantableTargets {
  target(kind: TargetKind, id: number): Promise<{ id: number; projectId: number | null } | null>;
  exists(kind: GrantKind, id: number): Promise<boolean>;
}

/** A session as its store keeps it (only the SHA-256 of its token). */
export interface Session {
  accountId: number;
  lastSeenAt: Date;
  expiresAt: Date;
  ended: boolean;
}

/**
 * Sessions are operational state, not facts (ADR 0004): sign-in and sign-out are events, the idle
 * clock is not. infrastructure/identity/sql-session-store.ts keeps them in the `sessions` table.
 */
export interface SessionStore {
  open(tokenHash: string, session: { accountId: number; at: Date; expiresAt: Date }): Promise<void>;
  find(tokenHash: string): Promise<Session | null>;
  /** Moves the idle clock. */
  touch(tokenHash: string, at: Date): Promise<void>;
  end(tokenHash: string, at: Date): Promise<void>;
  /** Ends every open session of the account but the one whose token hashes to `keep`. */
  endAllOf(accountId: number, at: Date, keep?: string): Promise<void>;
}

/** Password hashing with a salt per password (trap 6); infrastructure/crypto/scrypt-password-hasher.ts. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /**
   * Whether the password matches the stored hash. With no hash (unknown name, account without a
   * password) it still compares against a dummy hash, so timing does not tell which.
   */
  verify(password: string, stored: string | null): Promise<boolean>;
}

/** New high-entropy bearer secrets with their readable prefix; infrastructure/crypto/random-secret-minter.ts. */
export interface SecretMinter {
  newSecret(kind: SecretKind): string;
}
