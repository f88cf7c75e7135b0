import { expect } from 'chai';
import type { Triage } from '../../../domain/triage/commands';
import { NOT_AFFECTED_JUSTIFICATIONS } from '../../../domain/triage/justification';
import { alice, decided, historyIn, spec, T0 } from './fixtures';

function triage(over: Partial<Triage> & Pick<Triage, 'status'>): Triage {
  return { type: 'Triage', actor: alice, fourEyes: false, now: new Date(T0), ...over };
}

describe('triage: body rules of POST /issues/{id}/triage (400)', () => {
  const given = spec.given(historyIn('under_review'));

  it('[S1.4.5-07] will_not_fix without expires_in_days is refused (400)', () => {
    given.when(triage({ status: 'will_not_fix' })).thenRefused('invalid');
  });

  for (const days of [0, 3651, -1, 1.5]) {
    it(`[S1.4.5-08] expires_in_days ${days} is refused (400)`, () => {
      given.when(triage({ status: 'will_not_fix', expiresInDays: days })).thenRefused('invalid');
    });
  }

  it('[S1.4.5-08] expires_in_days 1 and 3650 are accepted; the review date is now plus that many days', () => {
    given.when(triage({ status: 'will_not_fix', expiresInDays: 1 })).then([decided('will_not_fix', { reviewDate: '2025-03-02T10:00:00.000Z' })]);
    given.when(triage({ status: 'will_not_fix', expiresInDays: 3650 })).then([decided('will_not_fix', { reviewDate: '2035-02-27T10:00:00.000Z' })]);
  });

  it('[S1.4.5-09] will_not_fix with a justification is refused (400)', () => {
    given.when(triage({ status: 'will_not_fix', expiresInDays: 30, justification: 'code_not_reachable' })).thenRefused('invalid');
  });

  it('[S1.4.5-07] expires_in_days with a status other than will_not_fix is refused rather than ignored (400)', () => {
    given.when(triage({ status: 'not_affected', expiresInDays: 30 })).thenRefused('invalid');
  });

  for (const justification of NOT_AFFECTED_JUSTIFICATIONS) {
    it(`[S1.4.5-18] not_affected accepts the CycloneDX justification ${justification}`, () => {
      given.when(triage({ status: 'not_affected', justification })).then([decided('not_affected', { justification })]);
    });
  }

  it('[S1.4.5-18] not_affected with a justification outside the vocabulary is refused (400), naming the allowed ones', () => {
    const error = given.when(triage({ status: 'not_affected', justification: 'vulnerable_code_not_in_execute_path' })).thenRefused('invalid');
    expect(error.extensions.allowed).to.deep.equal([...NOT_AFFECTED_JUSTIFICATIONS]);
  });

  it('[S1.4.5-13] not_affected without a justification is allowed (VEX reads it as under investigation)', () => {
    given.when(triage({ status: 'not_affected' })).then([decided('not_affected', { justification: null })]);
  });

  for (const status of ['affected', 'under_review', 'fixed'] as const) {
    it(`[S1.4.5-09] a justification with ${status} is refused (400): it belongs to not_affected`, () => {
      given.when(triage({ status, justification: 'code_not_present' })).thenRefused('invalid');
    });
  }

  it('[S1.2.3-01] pending_approval cannot be chosen, and an unknown status is refused (400)', () => {
    given.when(triage({ status: 'pending_approval' as never })).thenRefused('invalid');
    given.when(triage({ status: 'wontfix' as never })).thenRefused('invalid');
  });
});
