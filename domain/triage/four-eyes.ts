import { refuse } from '../shared/decider';
import type { AccountId, ReviewAction, TriageCommand, TriageCommandType } from './commands';
import type { TriageState } from './state';

/** A step of triage as four-eyes reads it: a command, or an exception review's action (four-eyes guards confirm and extend, not revoke). */
export type FourEyesStep = Exclude<TriageCommandType, 'ExceptionReview'> | `ExceptionReview:${ReviewAction}`;

/** When a rule holds: always, or only while the installation setting triage_four_eyes is on. */
export type FourEyesWhen = 'always' | 'four_eyes';

/** Whose word a step is measured against: the request's author, or the account the status in force rests on. */
export type GuardedAccount = 'requester' | 'resting_on';

export type FourEyesRule =
  /** No second person is involved: the step settles nothing of its own. */
  | { readonly rule: 'free' }
  /** A settling status named by the step waits in pending_approval for a second person instead of being set. */
  | { readonly rule: 'settling_waits'; readonly when: FourEyesWhen }
  /** The step is refused (403, `detail`) to the guarded account. */
  | { readonly rule: 'not_by'; readonly account: GuardedAccount; readonly when: FourEyesWhen; readonly detail: string };

const NOT_THE_RESTING_ACCOUNT = 'Under four-eyes an exception is confirmed or extended by someone other than the account it rests on';

/**
 * Four-eyes, row by row (spec 1 §3.2 and §4.5), beside the transition table (transitions.ts): the
 * transition table says which steps a status accepts, this one who may take them. The deciders of
 * the steps consult it (settlingWaits, assertFourEyes) and its spec walks every row.
 *
 *   step                     | rule
 *   Triage                   | with four-eyes on, a settling status is requested (pending_approval), never set (S1.3.2-01, -03)
 *   ProposeTriage            | a tracker's settling status always waits for a person; a proposal has no direct form (S1.3.2-08)
 *   ApproveTriage            | never by the account that asked, whatever the setting: approval is the second pair of eyes (S1.3.2-04)
 *   RefuseTriage             | free: the requester may withdraw their own request; it settles nothing (S1.3.2-06)
 *   ReviewDateReached        | free: the scheduler only takes trust away (S1.3.2-07)
 *   ExceptionReview confirm  | with four-eyes on, never by the account the exception rests on, or one person
 *   ExceptionReview extend   |   could keep their own risk acceptance alive indefinitely (S1.4.5-06)
 *   ExceptionReview revoke   | free: it only removes trust
 */
export const FOUR_EYES: Readonly<Record<FourEyesStep, FourEyesRule>> = {
  Triage: { rule: 'settling_waits', when: 'four_eyes' },
  ProposeTriage: { rule: 'settling_waits', when: 'always' },
  ApproveTriage: {
    rule: 'not_by', account: 'requester', when: 'always',
    detail: 'A triage request must be approved by someone other than the account that made it',
  },
  RefuseTriage: { rule: 'free' },
  ReviewDateReached: { rule: 'free' },
  'ExceptionReview:confirm': { rule: 'not_by', account: 'resting_on', when: 'four_eyes', detail: NOT_THE_RESTING_ACCOUNT },
  'ExceptionReview:extend': { rule: 'not_by', account: 'resting_on', when: 'four_eyes', detail: NOT_THE_RESTING_ACCOUNT },
  'ExceptionReview:revoke': { rule: 'free' },
};

export function stepOf(command: TriageCommand): FourEyesStep {
  return command.type === 'ExceptionReview' ? `ExceptionReview:${command.action}` : command.type;
}

/** The row of a command; an unknown review action (refused by its decider first) reads as free. */
function ruleOf(command: TriageCommand): FourEyesRule {
  return FOUR_EYES[stepOf(command)] ?? { rule: 'free' };
}

/** A rule holds always, or when the command carries the setting triage_four_eyes on. */
function holds(when: FourEyesWhen, command: TriageCommand): boolean {
  return when === 'always' || ('fourEyes' in command && command.fourEyes === true);
}

/** True when a settling status named by this command waits in pending_approval rather than being set. */
export function settlingWaits(command: TriageCommand): boolean {
  const row = ruleOf(command);
  return row.rule === 'settling_waits' && holds(row.when, command);
}

function guardedAccount(account: GuardedAccount, state: TriageState): AccountId | null {
  return account === 'requester' ? (state.pending?.requestedBy ?? null) : state.decidedBy;
}

/** Refuses (403) the step when its row bars the acting account; a tracker's request names none, so any approver may decide it. */
export function assertFourEyes(command: TriageCommand, state: TriageState): void {
  const row = ruleOf(command);
  if (row.rule !== 'not_by' || !holds(row.when, command)) return;
  const barred = guardedAccount(row.account, state);
  const actor = 'actor' in command ? command.actor : null;
  if (barred !== null && barred === actor) throw refuse.forbidden(row.detail);
}
