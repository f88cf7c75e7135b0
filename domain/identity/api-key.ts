import { assertNever, Decider, DomainEvent, refuse } from '../shared/decider';
import { isScope, Role, Scope, scopesAllowedFor } from './roles';

export type KeyRestriction = { kind: 'repository' | 'container'; id: number } | null;

export type RevocationReason = 'revoked' | 'password_changed' | 'password_reset' | 'target_deleted' | 'deprovisioned';

/** One key's stream: `api-key-<id>`. The secret never enters an event, only its SHA-256. */
export type ApiKeyEvent =
  | DomainEvent<'ApiKeyIssued', { id: number; accountId: number; name: string; scopes: Scope[]; keyHash: string; keyPrefix: string; expiresAt: string | null; restriction: KeyRestriction }>
  | DomainEvent<'ApiKeyRevoked', { id: number; reason: RevocationReason }>;

export type ApiKeyCommand =
  | { type: 'IssueApiKey'; id: number; accountId: number; accountRoles: readonly Role[]; name: string; scopes: string[]; keyHash: string; keyPrefix: string; expiresAt: string | null; restriction: KeyRestriction; now: Date }
  | { type: 'RevokeApiKey'; reason: RevocationReason };

export interface ApiKeyState {
  status: 'none' | 'active' | 'revoked';
  id: number | null;
}

export const apiKeyTransitions: Record<ApiKeyState['status'], readonly ApiKeyCommand['type'][]> = {
  none: ['IssueApiKey'],
  active: ['RevokeApiKey'],
  revoked: [],
};

export const apiKeyDecider: Decider<ApiKeyCommand, ApiKeyEvent, ApiKeyState> = {
  initialState: () => ({ status: 'none', id: null }),
  decide(command, state) {
    if (!apiKeyTransitions[state.status].includes(command.type)) {
      if (state.status === 'none') throw refuse.notFound('No such key.');
      if (command.type === 'RevokeApiKey') return []; // revoking twice changes nothing
      throw refuse.conflict('This key already exists.');
    }
    switch (command.type) {
      case 'IssueApiKey': {
        const name = command.name?.trim();
        if (!name) throw refuse.invalid('A key needs a name.');
        if (!Array.isArray(command.scopes) || command.scopes.length === 0) throw refuse.invalid('A key needs at least one scope: scan, read, report_import, sarif_import or agent.');
        const unknown = command.scopes.filter((s) => !isScope(s));
        if (unknown.length) throw refuse.invalid(`Unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}; scopes are scan, read, report_import, sarif_import, agent.`);
        const allowed = scopesAllowedFor(command.accountRoles);
        const beyond = command.scopes.filter((s) => !allowed.has(s as Scope));
        if (beyond.length) throw refuse.forbidden(`A key never does more than its account: this account may not hold scope ${beyond.join(', ')}.`);
        if (command.expiresAt !== null && !(Date.parse(command.expiresAt) > command.now.getTime())) {
          throw refuse.invalid('expiresAt must be a time in the future (ISO 8601).');
        }
        return [{ type: 'ApiKeyIssued', data: {
          id: command.id, accountId: command.accountId, name, scopes: [...new Set(command.scopes as Scope[])].sort(),
          keyHash: command.keyHash, keyPrefix: command.keyPrefix, expiresAt: command.expiresAt, restriction: command.restriction,
        } }];
      }
      case 'RevokeApiKey':
        return [{ type: 'ApiKeyRevoked', data: { id: state.id!, reason: command.reason } }];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ApiKeyIssued': return { status: 'active', id: event.data.id };
      case 'ApiKeyRevoked': return { ...state, status: 'revoked' };
      default: return assertNever(event);
    }
  },
};
