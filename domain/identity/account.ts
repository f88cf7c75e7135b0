import { assertNever, Decider, DomainEvent, refuse } from '../shared/decider';
import { textProblem } from '../shared/text';
import { isRole, Role } from './roles';

/** One account's stream: `account-<id>`. Only password hashes (scrypt) ever enter an event. */
export type AccountEvent =
  | DomainEvent<'AccountCreated', { id: number; username: string; displayName: string; roles: Role[]; passwordHash: string | null; bootstrap: boolean }>
  | DomainEvent<'AccountUpdated', { id: number; displayName?: string; roles?: Role[]; active?: boolean }>
  | DomainEvent<'AccountPasswordChanged', { id: number; passwordHash: string; reason: 'own_change' | 'reset' }>;

export type AccountCommand =
  | { type: 'CreateAccount'; id: number; username: string; displayName: string; roles: string[]; passwordHash: string | null; bootstrap?: boolean }
  | { type: 'UpdateAccount'; displayName?: string; roles?: string[]; active?: boolean }
  | { type: 'ChangeOwnPassword'; passwordHash: string }
  | { type: 'ResetPassword'; passwordHash: string };

export interface AccountState {
  status: 'none' | 'active' | 'inactive';
  id: number | null;
  roles: Role[];
}

/** Which commands each status accepts: the table decide() consults. */
export const accountTransitions: Record<AccountState['status'], readonly AccountCommand['type'][]> = {
  none: ['CreateAccount'],
  active: ['UpdateAccount', 'ChangeOwnPassword', 'ResetPassword'],
  inactive: ['UpdateAccount', 'ResetPassword'],
};

export const USERNAME_PATTERN = /^[A-Za-z0-9._@-]{1,100}$/;
export const MIN_PASSWORD_LENGTH = 12;

/** The rule for every new password (creation, own change, reset): one that sign-in accepts. */
export function checkNewPassword(password: unknown): string {
  if (typeof password !== 'string' || password.length < MIN_PASSWORD_LENGTH) throw refuse.invalid(`A password needs at least ${MIN_PASSWORD_LENGTH} characters.`);
  // Single-line text, as sign-in reads it: a password set must be one that can sign in.
  const malformed = textProblem('the new password', password, { max: Infinity, kind: 'line' });
  if (malformed) throw refuse.invalid(`${malformed.charAt(0).toUpperCase()}${malformed.slice(1)}.`);
  return password;
}

/**
 * What a refused sign-in records of the name typed: control, line-separator and direction
 * characters and lone surrogates as \uXXXX, at most `max` characters (then "…"), so that an
 * audit reader sees exactly what came and nothing can forge a line or reorder the text.
 */
export function printableName(text: string, max = 100): string {
  const escaped = text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028-\u202e\u2066-\u2069\\]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (c) => (c === '\\' ? '\\\\' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  const chars = Array.from(escaped);
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : escaped;
}

function validRoles(roles: string[]): Role[] {
  if (!Array.isArray(roles) || roles.length === 0) throw refuse.invalid('An account needs at least one role.');
  const unknown = roles.filter((r) => !isRole(r));
  if (unknown.length) throw refuse.invalid(`Unknown role ${unknown.map((r) => `"${r}"`).join(', ')}; roles are administrator, ciso, security_lead, platform_governor, auditor, writer, reader.`);
  return [...new Set(roles as Role[])];
}

export const accountDecider: Decider<AccountCommand, AccountEvent, AccountState> = {
  initialState: () => ({ status: 'none', id: null, roles: [] }),
  decide(command, state) {
    if (!accountTransitions[state.status].includes(command.type)) {
      if (state.status === 'none') throw refuse.notFound('No such account.');
      if (command.type === 'CreateAccount') throw refuse.conflict('This account already exists.');
      throw refuse.forbidden('This account is deactivated.');
    }
    switch (command.type) {
      case 'CreateAccount': {
        if (!USERNAME_PATTERN.test(command.username)) throw refuse.invalid('A username has 1 to 100 letters, digits, dots, underscores, @ or hyphens.');
        const displayName = (command.displayName ?? '').trim() || command.username;
        return [{ type: 'AccountCreated', data: { id: command.id, username: command.username, displayName, roles: validRoles(command.roles), passwordHash: command.passwordHash, bootstrap: command.bootstrap ?? false } }];
      }
      case 'UpdateAccount': {
        const data: Extract<AccountEvent, { type: 'AccountUpdated' }>['data'] = { id: state.id! };
        if (command.displayName !== undefined) data.displayName = command.displayName.trim();
        if (command.roles !== undefined) data.roles = validRoles(command.roles);
        if (command.active !== undefined) data.active = command.active;
        return [{ type: 'AccountUpdated', data }];
      }
      case 'ChangeOwnPassword':
        return [{ type: 'AccountPasswordChanged', data: { id: state.id!, passwordHash: command.passwordHash, reason: 'own_change' } }];
      case 'ResetPassword':
        return [{ type: 'AccountPasswordChanged', data: { id: state.id!, passwordHash: command.passwordHash, reason: 'reset' } }];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'AccountCreated':
        return { status: 'active', id: event.data.id, roles: event.data.roles };
      case 'AccountUpdated':
        return {
          ...state,
          roles: event.data.roles ?? state.roles,
          status: event.data.active === undefined ? state.status : event.data.active ? 'active' : 'inactive',
        };
      case 'AccountPasswordChanged':
        return state;
      default:
        return assertNever(event);
    }
  },
};

/**
 * Whose keys a password change revokes (spec 1 §5): an administrator's own change revokes the
 * keys that account issued; a reset always revokes the account's keys.
 */
export function passwordChangeRevokesKeys(event: Extract<AccountEvent, { type: 'AccountPasswordChanged' }>, roles: readonly Role[]): boolean {
  return event.data.reason === 'reset' || roles.includes('administrator');
}
