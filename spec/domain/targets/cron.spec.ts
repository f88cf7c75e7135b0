import { expect } from 'chai';
import { cronOccurrenceAfter, latestCronOccurrenceAtOrBefore, validateCronExpression } from '../../../domain/targets/cron';
import { refusal } from '../../support/decider-spec';

const at = (iso: string) => Date.parse(iso);

describe('scanCron expressions', () => {
  for (const expression of ['*/15 * * * *', '0 3 * * *', '0 3 * * MON-FRI', '30 2 1 JAN *', '0 0 L * *', '0 0 * * 1#2', '0 0 29 2 *', '0 3 * * THU']) {
    it(`accepts ${JSON.stringify(expression)}`, () => {
      expect(validateCronExpression(expression)).to.equal(expression);
    });
  }

  it('stores the expression trimmed with single spaces', () => {
    expect(validateCronExpression('  0   3 *\t* * ')).to.equal('0 3 * * *');
  });

  const refused: [string, string, RegExp][] = [
    ['four fields', '0 3 * *', /expected five fields .* got 4/],
    ['six fields (seconds)', '0 0 3 * * *', /expected five fields .* got 6/],
    ['a macro', '@daily', /macros are not accepted.*"0 3 \* \* \*"/],
    ['a minute out of range', '61 * * * *', /0-59/],
    ['an hour out of range', '0 24 * * *', /0-23/],
    ['a day that never comes', '0 0 30 2 *', /day of month/],
    ['a step of zero', '*/0 * * * *', /./],
    ['words', 'every day at 3', /./],
    ['hashed jitter', 'H 3 * * *', /'H'/],
  ];
  for (const [why, expression, detail] of refused) {
    it(`refuses (400) ${why} with a detail naming the expression`, () => {
      const error = refusal(() => validateCronExpression(expression));
      expect(error.kind).to.equal('invalid');
      expect(error.message).to.match(/^scanCron ".*" is not a valid cron expression: /);
      expect(error.message).to.match(detail);
    });
  }

  it('reads expressions in UTC: the next occurrence is strictly after the instant given', () => {
    expect(cronOccurrenceAfter('0 3 * * *', at('2024-05-01T03:00:00Z'))).to.equal(at('2024-05-02T03:00:00Z'));
    expect(cronOccurrenceAfter('0 3 * * *', at('2024-05-01T02:59:59.999Z'))).to.equal(at('2024-05-01T03:00:00Z'));
  });

  it('the latest occurrence at or before now includes an occurrence at exactly now', () => {
    expect(latestCronOccurrenceAtOrBefore('0 * * * *', at('2024-05-01T10:00:00Z'))).to.equal(at('2024-05-01T10:00:00Z'));
    expect(latestCronOccurrenceAtOrBefore('0 * * * *', at('2024-05-01T10:59:59.999Z'))).to.equal(at('2024-05-01T10:00:00Z'));
    expect(latestCronOccurrenceAtOrBefore('0 * * * *', at('2024-05-01T11:00:00Z'))).to.equal(at('2024-05-01T11:00:00Z'));
  });

  it('a remembered window never answers for an instant outside it (earlier or later rounds)', () => {
    const expression = '0 3 * * *';
    expect(latestCronOccurrenceAtOrBefore(expression, at('2024-05-10T12:00:00Z'))).to.equal(at('2024-05-10T03:00:00Z'));
    expect(latestCronOccurrenceAtOrBefore(expression, at('2024-05-11T02:00:00Z'))).to.equal(at('2024-05-10T03:00:00Z'));
    expect(latestCronOccurrenceAtOrBefore(expression, at('2024-05-11T03:00:00Z'))).to.equal(at('2024-05-11T03:00:00Z'));
    expect(latestCronOccurrenceAtOrBefore(expression, at('2024-05-01T12:00:00Z'))).to.equal(at('2024-05-01T03:00:00Z'));
  });
});
