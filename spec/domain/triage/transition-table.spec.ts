import { expect } from 'chai';
import { fold } from '../../../domain/shared/decider';
import { TRIAGE_TRANSITIONS } from '../../../domain/triage/transitions';
import { triageDecider } from '../../../domain/triage/decider';
import type { TriageCommandType } from '../../../domain/triage/commands';
import { SETTLING_STATUSES, TRIAGE_STATUSES, type TriageStatus } from '../../../domain/triage/status';
import { historyIn, sampleCommand, spec } from './fixtures';

const COMMAND_TYPES: readonly TriageCommandType[] = [
  'Triage',
  'ApproveTriage',
  'RefuseTriage',
  'ReviewDateReached',
  'ExceptionReview',
  'ProposeTriage',
];

/** The rule each command's row comes from, for the titles of the refusals. */
const RULE: Readonly<Record<TriageCommandType, string>> = {
  Triage: 'S1.3.2-01',
  ApproveTriage: 'S1.3.2-04',
  RefuseTriage: 'S1.3.2-06',
  ReviewDateReached: 'S1.3.2-07',
  ExceptionReview: 'S1.4.5-06',
  ProposeTriage: 'S1.3.2-08',
};

/** Every status's row of the table, read both ways: what it lists is decided, what it omits is refused. */
describe('triage transition table (spec 1 §3.2)', () => {
  it('[S1.2.3-01] has a row for every triage status and no other', () => {
    expect(Object.keys(TRIAGE_TRANSITIONS).sort()).to.deep.equal([...TRIAGE_STATUSES].sort());
  });

  for (const status of Object.keys(TRIAGE_TRANSITIONS) as TriageStatus[]) {
    for (const type of COMMAND_TYPES) {
      const listed = TRIAGE_TRANSITIONS[status].includes(type);
      const history = historyIn(status);

      if (listed) {
        it(`[S1.2.3-01] [S1.2.3-02] [S1.2.3-03] ${status} accepts ${type}; the status after is of the vocabulary, with triageRequestedStatus set exactly while pending_approval`, () => {
          const events = triageDecider.decide(sampleCommand(type), fold(triageDecider, history));
          const after = fold(triageDecider, [...history, ...events]);
          expect(TRIAGE_STATUSES).to.include(after.triageStatus);
          if (after.triageStatus === 'pending_approval') {
            expect(SETTLING_STATUSES).to.include(after.triageRequestedStatus);
            expect(after.pending).to.not.equal(null);
          } else {
            expect(after.triageRequestedStatus).to.equal(null);
            expect(after.pending).to.equal(null);
          }
        });
      } else if (type === 'ReviewDateReached') {
        it(`[S1.3.2-07] ${status}: the scheduler's review date decides nothing`, () => {
          spec.given(history).when(sampleCommand(type)).then([]);
        });
      } else {
        it(`[${RULE[type]}] ${status} refuses ${type} with 409`, () => {
          spec.given(history).when(sampleCommand(type)).thenRefused('conflict');
        });
      }
    }
  }
});
