import { expect } from 'chai';
import { DomainError, fold } from '../../../domain/shared/decider';
import { triageDecider } from '../../../domain/triage/decider';
import { REVIEW_ACTIONS, type TriageCommand, type TriageCommandType } from '../../../domain/triage/commands';
import { FOUR_EYES, stepOf, type FourEyesStep } from '../../../domain/triage/four-eyes';
import type { TriageStreamEvent } from '../../../domain/triage/events';
import { alice, bob, historyIn, integration, REVIEW, T1 } from './fixtures';

const COMMAND_TYPES: readonly TriageCommandType[] = ['Triage', 'ApproveTriage', 'RefuseTriage', 'ReviewDateReached', 'ExceptionReview', 'ProposeTriage'];

/** The rule each row comes from, for the titles. */
const RULE: Readonly<Record<FourEyesStep, string>> = {
  Triage: 'S1.3.2-01',
  ProposeTriage: 'S1.3.2-08',
  ApproveTriage: 'S1.3.2-04',
  RefuseTriage: 'S1.3.2-06',
  ReviewDateReached: 'S1.3.2-07',
  'ExceptionReview:confirm': 'S1.4.5-06',
  'ExceptionReview:extend': 'S1.4.5-06',
  'ExceptionReview:revoke': 'S1.4.5-06',
};

/**
 * Each step taken by `actor` on an issue whose guarded account is alice (she asked for the pending
 * request, or the settled status rests on her word), with the setting triage_four_eyes as given.
 */
const CASE: Readonly<Record<FourEyesStep, (actor: string, fourEyes: boolean) => { history: TriageStreamEvent[]; command: TriageCommand }>> = {
  Triage: (actor, fourEyes) => ({ history: historyIn('affected'), command: { type: 'Triage', status: 'will_not_fix', expiresInDays: 30, actor, fourEyes, now: new Date(T1) } }),
  ProposeTriage: () => ({ history: historyIn('under_review'), command: { type: 'ProposeTriage', closing: 'refusal', integration, now: new Date(T1) } }),
  ApproveTriage: (actor) => ({ history: historyIn('pending_approval'), command: { type: 'ApproveTriage', status: 'will_not_fix', actor, now: new Date(T1) } }),
  RefuseTriage: (actor) => ({ history: historyIn('pending_approval'), command: { type: 'RefuseTriage', status: 'under_review', actor, now: new Date(T1) } }),
  ReviewDateReached: () => ({ history: historyIn('will_not_fix'), command: { type: 'ReviewDateReached', now: new Date(REVIEW) } }),
  'ExceptionReview:confirm': (actor, fourEyes) => ({ history: historyIn('will_not_fix'), command: { type: 'ExceptionReview', action: 'confirm', actor, fourEyes, now: new Date(T1) } }),
  'ExceptionReview:extend': (actor, fourEyes) => ({
    history: historyIn('will_not_fix'), command: { type: 'ExceptionReview', action: 'extend', expiresInDays: 90, actor, fourEyes, now: new Date(T1) },
  }),
  'ExceptionReview:revoke': (actor, fourEyes) => ({ history: historyIn('will_not_fix'), command: { type: 'ExceptionReview', action: 'revoke', actor, fourEyes, now: new Date(T1) } }),
};

/** What the step decides, or the refusal it meets. */
function attempt(step: FourEyesStep, actor: string, fourEyes: boolean): { events: TriageStreamEvent[]; history: TriageStreamEvent[] } | DomainError {
  const { history, command } = CASE[step](actor, fourEyes);
  expect(stepOf(command)).to.equal(step);
  try {
    return { events: triageDecider.decide(command, fold(triageDecider, history)), history };
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
}

/** The four-eyes table read row by row, with the setting on and off: what it bars is refused, what it lets wait waits. */
describe('triage four-eyes table (spec 1 §3.2, §4.5)', () => {
  it('[S1.3.2-01] has a row for every command and every exception review action, and no other', () => {
    const steps = COMMAND_TYPES.flatMap((t) => (t === 'ExceptionReview' ? REVIEW_ACTIONS.map((a) => `ExceptionReview:${a}`) : [t]));
    expect(Object.keys(FOUR_EYES).sort()).to.deep.equal(steps.sort());
  });

  for (const step of Object.keys(FOUR_EYES) as FourEyesStep[]) {
    const row = FOUR_EYES[step];
    for (const fourEyes of [true, false]) {
      const setting = `four-eyes ${fourEyes ? 'on' : 'off'}`;
      const holds = row.rule !== 'free' && (row.when === 'always' || fourEyes);
      if (row.rule === 'not_by') {
        const who = row.account === 'requester' ? 'the account that asked' : 'the account the exception rests on';
        it(`[${RULE[step]}] ${step}, ${setting}: ${holds ? 'refused (403) to' : 'open to'} ${who}; open to another account`, () => {
          const own = attempt(step, alice, fourEyes);
          if (holds) {
            expect(own).to.be.instanceOf(DomainError);
            expect((own as DomainError).kind).to.equal('forbidden');
            expect((own as DomainError).message).to.equal(row.detail);
          } else {
            expect(own).to.not.be.instanceOf(DomainError);
            expect((own as { events: unknown[] }).events).to.have.length(1);
          }
          const other = attempt(step, bob, fourEyes);
          expect(other).to.not.be.instanceOf(DomainError);
          expect((other as { events: unknown[] }).events).to.have.length(1);
        });
      } else if (row.rule === 'settling_waits') {
        it(`[${RULE[step]}] ${step}, ${setting}: a settling status ${holds ? 'waits in pending_approval for a second person' : 'is set directly'}`, () => {
          const decided = attempt(step, alice, fourEyes);
          expect(decided).to.not.be.instanceOf(DomainError);
          const { events, history } = decided as { events: TriageStreamEvent[]; history: TriageStreamEvent[] };
          expect(events).to.have.length(1);
          const after = fold(triageDecider, [...history, ...events]);
          if (holds) {
            expect(after.triageStatus).to.equal('pending_approval');
            expect(after.triageRequestedStatus).to.equal('will_not_fix');
          } else {
            expect(after.triageStatus).to.equal('will_not_fix');
            expect(after.pending).to.equal(null);
          }
        });
      } else {
        it(`[${RULE[step]}] ${step}, ${setting}: free, even to the account the request or the exception rests on`, () => {
          const decided = attempt(step, alice, fourEyes);
          expect(decided).to.not.be.instanceOf(DomainError);
          expect((decided as { events: unknown[] }).events).to.have.length(1);
        });
      }
    }
  }
});
