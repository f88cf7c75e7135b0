import { expect } from 'chai';
import { BADGE_TRANSITIONS, badgeDecider, BadgeEvent } from '../../../domain/scorecards/badge-token';
import { deciderSpec } from '../../support/decider-spec';

const spec = deciderSpec(badgeDecider);
const now = new Date('2026-03-02T10:00:00.000Z');
const issued: BadgeEvent = { type: 'ScorecardBadgeIssued', data: { id: 4, targetKind: 'repository', targetId: 12, tokenHash: 'ab'.repeat(32), actor: 1, at: now.toISOString() } };
const revoked: BadgeEvent = { type: 'ScorecardBadgeRevoked', data: { id: 4, actor: 1, at: now.toISOString() } };

describe('Badge tokens: issue and revoke (the decider of POST and DELETE /scorecards/badges)', () => {
  it('issuing records the token\'s hash only, at the command\'s instant', () => {
    spec.given([]).when({ type: 'IssueBadge', id: 4, targetKind: 'repository', targetId: 12, tokenHash: 'ab'.repeat(32), actor: 1, now }).then([issued]);
  });

  it('issuing a badge id twice is refused (409)', () => {
    spec.given([issued]).when({ type: 'IssueBadge', id: 4, targetKind: 'repository', targetId: 12, tokenHash: 'cd'.repeat(32), actor: 1, now }).thenRefused('conflict');
  });

  it('revoking records the instant; revoking again decides nothing; an unknown badge is 404', () => {
    spec.given([issued]).when({ type: 'RevokeBadge', id: 4, actor: 1, now }).then([revoked]);
    spec.given([issued, revoked]).when({ type: 'RevokeBadge', id: 4, actor: 1, now }).then([]);
    spec.given([]).when({ type: 'RevokeBadge', id: 4, actor: 1, now }).thenRefused('not_found');
  });

  it('the transition table is the one decide reads', () => {
    expect(BADGE_TRANSITIONS).to.deep.equal({ none: ['IssueBadge'], issued: ['RevokeBadge'], revoked: [] });
  });
});
