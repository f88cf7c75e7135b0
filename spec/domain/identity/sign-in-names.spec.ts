import { expect } from 'chai';
import { DomainError } from '../../../domain/shared/decider';
import { checkNewPassword, printableName } from '../../../domain/identity/account';

describe('What a refused sign-in records of the name typed', () => {
  it('escapes control, line-separator and direction characters, lone surrogates and the backslash itself', () => {
    expect(printableName('admin')).to.equal('admin');
    expect(printableName('a\u0000b\r\nc\u007f\u0085')).to.equal('a\\u0000b\\u000d\\u000ac\\u007f\\u0085');
    expect(printableName('x\u2028y\u202ez\u2066')).to.equal('x\\u2028y\\u202ez\\u2066');
    expect(printableName('\ud800lone')).to.equal('\\ud800lone');
    expect(printableName('pair \ud83d\ude00')).to.equal('pair \ud83d\ude00');
    expect(printableName('typed\\u0000')).to.equal('typed\\\\u0000'); // distinguishable from an escaped NUL
  });

  it('keeps at most 100 characters, then says it cut', () => {
    expect(printableName('n'.repeat(100))).to.equal('n'.repeat(100));
    expect(printableName('n'.repeat(101))).to.equal(`${'n'.repeat(100)}…`);
    expect(printableName('\u0000'.repeat(50))).to.have.length(101);
  });
});

describe('The rule for a new password', () => {
  it('needs 12 characters and no control character', () => {
    expect(checkNewPassword('twelve-chars')).to.equal('twelve-chars');
    for (const p of ['eleven-char', 'twelve\u0000chars', 'twelve\tchars!', 'twelve-chars\n']) {
      expect(() => checkNewPassword(p), JSON.stringify(p)).to.throw(DomainError);
    }
  });
});
