import { expect } from 'chai';
import { parseFilter, patchChanges, ScimError } from '../../../domain/identity/scim';
import { BACKUP_CODE_SIEM, MFA_CEILING_SIEM, SecondFactorEvent, secondFactorDecider } from '../../../domain/identity/second-factor';
import { ACCOUNT_CREDENTIALS_SIEM, linkRefusal, secondFactorStated, usernameFor } from '../../../domain/identity/sso';
import { deciderSpec } from '../../support/decider-spec';

const sealed = { alg: 'A256GCM', kid: 'k', iv: 'aXY=', ct: 'Y3Q=', tag: 'dGFn' } as const;
const begun: SecondFactorEvent = { type: 'SecondFactorEnrolmentBegun', data: { accountId: 7, secret: sealed } };
const hashes = Array.from({ length: 10 }, (_, i) => `h${i}`);
const enrolled: SecondFactorEvent = { type: 'SecondFactorEnrolled', data: { accountId: 7, backupCodeHashes: hashes, siem: ACCOUNT_CREDENTIALS_SIEM } };

describe('Single sign-on, second factor and SCIM rules (domain)', () => {
  describe('the second-factor decider', () => {
    const spec = deciderSpec(secondFactorDecider);

    it('[S2.6-37] a confirmed enrolment keeps the ten backup code hashes and signals VGL-SEC-010', () => {
      spec.given([begun]).when({ type: 'ConfirmEnrolment', codeValid: true, backupCodeHashes: hashes }).then([enrolled]);
    });

    it('a wrong code confirms nothing (400); confirming twice is a conflict', () => {
      spec.given([begun]).when({ type: 'ConfirmEnrolment', codeValid: false, backupCodeHashes: hashes }).thenRefused('invalid');
      spec.given([begun, enrolled]).when({ type: 'ConfirmEnrolment', codeValid: true, backupCodeHashes: hashes }).thenRefused('conflict');
      spec.given([begun, enrolled]).when({ type: 'BeginEnrolment', accountId: 7, secret: sealed }).thenRefused('conflict');
    });

    it('[S2.6-33] a backup code is consumed once, signalled VGL-SEC-006; a spent or unknown one decides nothing', () => {
      const consumed: SecondFactorEvent = { type: 'SecondFactorBackupCodeConsumed', data: { accountId: 7, index: 2, left: 9, siem: BACKUP_CODE_SIEM } };
      spec.given([begun, enrolled]).when({ type: 'ConsumeBackupCode', hash: 'h2' }).then([consumed]);
      spec.given([begun, enrolled, consumed]).when({ type: 'ConsumeBackupCode', hash: 'h2' }).then([]);
      spec.given([begun, enrolled]).when({ type: 'ConsumeBackupCode', hash: 'nope' }).then([]);
    });

    it('[S2.6-35] a destroyed challenge signals VGL-SEC-008; a reset empties the factor; nothing to reset is 404', () => {
      spec.given([begun, enrolled]).when({ type: 'DestroyChallenge', failures: 5 }).then([{ type: 'SecondFactorChallengeDestroyed', data: { accountId: 7, failures: 5, siem: MFA_CEILING_SIEM } }]);
      const reset: SecondFactorEvent = { type: 'SecondFactorReset', data: { accountId: 7, siem: ACCOUNT_CREDENTIALS_SIEM } };
      spec.given([begun, enrolled]).when({ type: 'ResetSecondFactor' }).then([reset]);
      spec.given([begun, enrolled, reset]).when({ type: 'ResetSecondFactor' }).thenRefused('not_found');
      spec.given([begun, enrolled, reset]).when({ type: 'ConsumeBackupCode', hash: 'h1' }).thenRefused('forbidden');
    });
  });

  describe('the linking rules', () => {
    const plain = { roles: ['writer'] as const, active: true, secondFactor: false, bound: false };

    it('[S1.5-23] a privileged account is bound only with the link setting on', () => {
      expect(linkRefusal({ ...plain, roles: ['security_lead'] }, false)?.refusal).to.equal('privileged');
      expect(linkRefusal({ ...plain, roles: ['security_lead'] }, true)).to.equal(null);
      expect(linkRefusal(plain, false)).to.equal(null);
    });

    it('[S1.5-24] an account with a local second factor is never bound, even with the link setting on', () => {
      expect(linkRefusal({ ...plain, secondFactor: true }, true)?.refusal).to.equal('local_second_factor');
      expect(linkRefusal({ ...plain, roles: ['administrator'], secondFactor: true }, true)?.refusal).to.equal('local_second_factor');
    });

    it('an account bound to another subject, or deactivated, is not bound', () => {
      expect(linkRefusal({ ...plain, bound: true }, true)?.refusal).to.equal('already_bound');
      expect(linkRefusal({ ...plain, active: false }, true)?.refusal).to.equal('deactivated');
    });
  });

  it('[S1.8.3-27] [S1.8.3-28] a second factor is stated by an amr among the configured values or an acr among the configured ones', () => {
    const policy = { requireMfa: true, mfaAmr: ['mfa', 'otp', 'hwk', 'fido'], mfaAcr: ['gold'] };
    expect(secondFactorStated({ amr: ['pwd', 'otp'], acr: null }, policy)).to.equal(true);
    expect(secondFactorStated({ amr: ['pwd'], acr: 'gold' }, policy)).to.equal(true);
    expect(secondFactorStated({ amr: ['pwd', 'sms'], acr: 'silver' }, policy)).to.equal(false);
    expect(secondFactorStated({ amr: [], acr: null }, policy)).to.equal(false);
  });

  it('a first sign-on is named after preferred_username, else email, else the subject digest', () => {
    expect(usernameFor({ preferredUsername: 'ann', email: 'a@x.test' }, 'ab'.repeat(32))).to.equal('ann');
    expect(usernameFor({ preferredUsername: 'Ann Smith', email: 'a@x.test' }, 'ab'.repeat(32))).to.equal('a@x.test');
    expect(usernameFor({ preferredUsername: null, email: null }, 'ab'.repeat(32))).to.equal('sso-abababababababab');
  });

  describe('SCIM', () => {
    it('[S1.5-21] evaluates userName eq and externalId eq, attribute and operator in any case', () => {
      expect(parseFilter('Users', 'userName eq "bjensen"')).to.deep.equal({ attribute: 'userName', value: 'bjensen' });
      expect(parseFilter('Users', 'EXTERNALID Eq "a \\"b\\""')).to.deep.equal({ attribute: 'externalId', value: 'a "b"' });
    });

    for (const filter of ['userName ne "x"', 'emails eq "x"', 'userName eq "x" or userName eq "y"', '(userName eq "x")', 'userName eq x', 'userName sw "x"', 'meta.lastModified gt "2011-05-13T04:42:34Z"']) {
      it(`[S1.5-22] refuses ${filter} as invalidFilter`, () => {
        let error: unknown;
        try { parseFilter('Users', filter); } catch (e) { error = e; }
        expect(error).to.be.instanceOf(ScimError);
        expect((error as ScimError).scimType).to.equal('invalidFilter');
        expect((error as ScimError).status).to.equal(400);
      });
    }

    it('a PatchOp changes active, displayName and externalId; userName is immutable', () => {
      expect(patchChanges([{ op: 'Replace', path: 'active', value: false }, { op: 'add', value: { 'name.formatted': 'B J', externalId: 'e1' } }]))
        .to.deep.equal({ active: false, displayName: 'B J', externalId: 'e1' });
      expect(patchChanges([{ op: 'remove', path: 'externalId' }])).to.deep.equal({ externalId: null });
      expect(() => patchChanges([{ op: 'replace', path: 'userName', value: 'x' }])).to.throw(ScimError).with.property('scimType', 'mutability');
      expect(() => patchChanges([{ op: 'replace', path: 'active', value: 'no' }])).to.throw(ScimError).with.property('scimType', 'invalidValue');
    });
  });
});
