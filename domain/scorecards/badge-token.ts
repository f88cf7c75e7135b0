import { Decider, DomainEvent, refuse } from '../shared/decider';
import type { TargetKind } from '../shared/target-kind';

/**
 * Public badge tokens (GET /scorecards/badges/{token}.svg), one stream per badge. An administrator
 * issues one per target (POST /scorecards/badges); the answer carries the token once, the event and
 * the read model only its SHA-256 (trap 6: no usable secret in an immutable event). The token is 32
 * random bytes, so a plain SHA-256 is enough to make the stored value useless to whoever reads the
 * database or the log. Revoking (DELETE /scorecards/badges/{id}) stops the image at once; a target
 * keeps any number of tokens.
 */
export type BadgeStatus = 'none' | 'issued' | 'revoked';

export type BadgeCommand =
  | { type: 'IssueBadge'; id: number; targetKind: TargetKind; targetId: number; tokenHash: string; actor: number | null; now: Date }
  | { type: 'RevokeBadge'; id: number; actor: number | null; now: Date };

export type BadgeIssued = DomainEvent<'ScorecardBadgeIssued', { id: number; targetKind: TargetKind; targetId: number; tokenHash: string; actor: number | null; at: string }>;
export type BadgeRevoked = DomainEvent<'ScorecardBadgeRevoked', { id: number; actor: number | null; at: string }>;
export type BadgeEvent = BadgeIssued | BadgeRevoked;

export interface BadgeState { status: BadgeStatus }

/** Which commands each status accepts; revoking a revoked badge decides nothing (DELETE is idempotent). */
export const BADGE_TRANSITIONS: Record<BadgeStatus, readonly BadgeCommand['type'][]> = {
  none: ['IssueBadge'],
  issued: ['RevokeBadge'],
  revoked: [],
};

export const badgeDecider: Decider<BadgeCommand, BadgeEvent, BadgeState> = {
  initialState: () => ({ status: 'none' }),
  decide(command, state) {
    if (!BADGE_TRANSITIONS[state.status].includes(command.type)) {
      if (command.type === 'RevokeBadge' && state.status === 'revoked') return [];
      if (command.type === 'RevokeBadge') throw refuse.notFound(`No badge ${command.id}.`);
      throw refuse.conflict(`Badge ${command.id} exists already.`);
    }
    const at = command.now.toISOString();
    switch (command.type) {
      case 'IssueBadge':
        return [{ type: 'ScorecardBadgeIssued', data: { id: command.id, targetKind: command.targetKind, targetId: command.targetId, tokenHash: command.tokenHash, actor: command.actor, at } }];
      case 'RevokeBadge':
        return [{ type: 'ScorecardBadgeRevoked', data: { id: command.id, actor: command.actor, at } }];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ScorecardBadgeIssued': return { status: 'issued' };
      case 'ScorecardBadgeRevoked': return { status: 'revoked' };
      default: return state;
    }
  },
};
