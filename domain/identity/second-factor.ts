import type { SealedSecret } from '../credentials/credential';
import { assertNever, Decider, DomainEvent, refuse } from '../shared/decider';
import { ACCOUNT_CREDENTIALS_SIEM } from './sso';

/** Spec 2 §6 signatures of the local second factor. */
export const BACKUP_CODE_SIEM = { signature: 'VGL-SEC-006', name: 'MFA backup code consumed', severity: 6 } as const;
export const MFA_CEILING_SIEM = { signature: 'VGL-SEC-008', name: 'MFA failure ceiling reached', severity: 7 } as const;

/** How many single-use backup codes an enrolment hands out. */
export const BACKUP_CODE_COUNT = 10;

/**
 * One account's local second factor (TOTP, RFC 6238): stream `second-factor-<accountId>`. The
 * shared secret enters the log only sealed (ENCRYPTION_KEY, bound to the stream); backup codes
 * only as hashes.
 */
export type SecondFactorEvent =
  | DomainEvent<'SecondFactorEnrolmentBegun', { accountId: number; secret: SealedSecret }>
  | DomainEvent<'SecondFactorEnrolled', { accountId: number; backupCodeHashes: string[]; siem: typeof ACCOUNT_CREDENTIALS_SIEM }>
  | DomainEvent<'SecondFactorBackupCodeConsumed', { accountId: number; index: number; left: number; siem: typeof BACKUP_CODE_SIEM }>
  | DomainEvent<'SecondFactorChallengeDestroyed', { accountId: number; failures: number; siem: typeof MFA_CEILING_SIEM }>
  | DomainEvent<'SecondFactorReset', { accountId: number; siem: typeof ACCOUNT_CREDENTIALS_SIEM }>;

export type SecondFactorCommand =
  | { type: 'BeginEnrolment'; accountId: number; secret: SealedSecret }
  | { type: 'ConfirmEnrolment'; codeValid: boolean; backupCodeHashes: string[] }
  | { type: 'ConsumeBackupCode'; hash: string }
  | { type: 'DestroyChallenge'; failures: number }
  | { type: 'ResetSecondFactor' };

export interface SecondFactorState {
  status: 'none' | 'pending' | 'active';
  accountId: number | null;
  /** The sealed TOTP secret of the latest enrolment. */
  secret: SealedSecret | null;
  /** Backup code hashes, null where one was consumed (indices stay stable). */
  backupCodes: (string | null)[];
}

/** Which commands each status accepts: the table decide() consults. */
export const secondFactorTransitions: Record<SecondFactorState['status'], readonly SecondFactorCommand['type'][]> = {
  none: ['BeginEnrolment'],
  pending: ['BeginEnrolment', 'ConfirmEnrolment', 'ResetSecondFactor'],
  active: ['ConsumeBackupCode', 'DestroyChallenge', 'ResetSecondFactor'],
};

/** Why a command the table does not allow for the status is refused. */
function refusal(command: SecondFactorCommand['type'], status: SecondFactorState['status']): Error {
  if (command === 'ResetSecondFactor') return refuse.notFound('This account has no second factor.');
  if (command === 'ConsumeBackupCode' || command === 'DestroyChallenge') return refuse.forbidden('No second factor is enrolled.');
  if (command === 'ConfirmEnrolment' && status === 'none') return refuse.conflict('No enrolment is under way; begin one with POST /me/second-factor.');
  return refuse.conflict('A second factor is already enrolled; an administrator resets it before another is enrolled.');
}

export const secondFactorDecider: Decider<SecondFactorCommand, SecondFactorEvent, SecondFactorState> = {
  initialState: () => ({ status: 'none', accountId: null, secret: null, backupCodes: [] }),
  decide(command, state) {
    if (!secondFactorTransitions[state.status].includes(command.type)) throw refusal(command.type, state.status);
    switch (command.type) {
      case 'BeginEnrolment':
        return [{ type: 'SecondFactorEnrolmentBegun', data: { accountId: command.accountId, secret: command.secret } }];
      case 'ConfirmEnrolment':
        if (!command.codeValid) throw refuse.invalid('The code does not match the secret being enrolled; enter the current code your authenticator shows.');
        if (command.backupCodeHashes.length !== BACKUP_CODE_COUNT) throw new Error(`An enrolment hands out ${BACKUP_CODE_COUNT} backup codes.`);
        return [{ type: 'SecondFactorEnrolled', data: { accountId: state.accountId!, backupCodeHashes: command.backupCodeHashes, siem: ACCOUNT_CREDENTIALS_SIEM } }];
      case 'ConsumeBackupCode': {
        const index = state.backupCodes.indexOf(command.hash);
        if (index < 0) return []; // not a code of this account, or spent: the caller counts a failure
        const left = state.backupCodes.filter((c) => c !== null).length - 1;
        return [{ type: 'SecondFactorBackupCodeConsumed', data: { accountId: state.accountId!, index, left, siem: BACKUP_CODE_SIEM } }];
      }
      case 'DestroyChallenge':
        return [{ type: 'SecondFactorChallengeDestroyed', data: { accountId: state.accountId!, failures: command.failures, siem: MFA_CEILING_SIEM } }];
      case 'ResetSecondFactor':
        return [{ type: 'SecondFactorReset', data: { accountId: state.accountId!, siem: ACCOUNT_CREDENTIALS_SIEM } }];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'SecondFactorEnrolmentBegun':
        return { status: 'pending', accountId: event.data.accountId, secret: event.data.secret, backupCodes: [] };
      case 'SecondFactorEnrolled':
        return { ...state, status: 'active', backupCodes: [...event.data.backupCodeHashes] };
      case 'SecondFactorBackupCodeConsumed':
        return { ...state, backupCodes: state.backupCodes.map((c, i) => (i === event.data.index ? null : c)) };
      case 'SecondFactorChallengeDestroyed':
        return state;
      case 'SecondFactorReset':
        return { status: 'none', accountId: state.accountId, secret: null, backupCodes: [] };
      default:
        return assertNever(event);
    }
  },
};
