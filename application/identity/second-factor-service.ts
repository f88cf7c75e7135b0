import { BACKUP_CODE_COUNT, secondFactorDecider, SecondFactorState } from '../../domain/identity/second-factor';
import { refuse } from '../../domain/shared/decider';
import { sha256Hex } from '../../domain/shared/digest';
import { streams } from '../../domain/shared/streams';
import { CommandHandler, RequestContext } from '../command-handler';
import { SecretBox } from '../ports/secret-box';
import type { IdentityService } from './identity-service';
import { Principal } from './principal';
import { AccountLookup, AccountView } from './ports';
import { ChallengeStore, TotpCodes } from './sso-ports';

/** How long a password sign-in waits for its second factor. */
export const CHALLENGE_LIFETIME_MS = 5 * 60_000;

export interface SecondFactorPorts {
  commands: CommandHandler;
  box: SecretBox;
  totp: TotpCodes;
  challenges: ChallengeStore;
  accounts: AccountLookup;
  factors: { hasSecondFactor(accountId: number): Promise<boolean> };
  sessions: Pick<IdentityService, 'openSession'>;
  /** VIGIL_SECOND_FACTOR_FAILURES: wrong codes a challenge takes before it is destroyed. */
  maxFailures: number;
  /** The issuer authenticator apps show (VIGIL_BRAND_NAME). */
  issuer: string;
}

/** A second-factor answer that did not sign in: 401 with what the client may do next. */
export class SecondFactorRefused extends Error {
  constructor(readonly destroyed: boolean, message: string) {
    super(message);
    this.name = 'SecondFactorRefused';
  }
}

/** A backup code as typed: case, spaces and hyphens do not matter. */
function backupCodeHash(accountId: number, code: string): string {
  return sha256Hex(`${accountId}:${code.toLowerCase().replace(/[\s-]/g, '')}`);
}

/**
 * The local second factor (issue #14): TOTP enrolment (the secret sealed under ENCRYPTION_KEY in
 * the event, bound to the account's second-factor stream), the challenge a password sign-in of an
 * enrolled account answers with, its verification by a TOTP code (each time step once) or a
 * single-use backup code (VGL-SEC-006), the failure ceiling that destroys the challenge
 * (VGL-SEC-008), and an administrator's reset (VGL-SEC-010).
 */
export class SecondFactorService {
  constructor(private readonly ports: SecondFactorPorts) {}

  /** Begins (or begins again) an enrolment: the secret and its otpauth URI, shown to the caller only. */
  async begin(ctx: RequestContext, principal: Principal): Promise<{ secret: string; otpauthUri: string }> {
    if (!this.ports.box.canSeal) {
      throw refuse.conflict('No ENCRYPTION_KEY is configured, so a second factor cannot be stored: set ENCRYPTION_KEY or ENCRYPTION_KEY_FILE and restart Vigil. Nothing was stored.');
    }
    const secret = this.ports.totp.newSecret();
    const stream = streams.secondFactor(principal.accountId);
    const sealed = this.ports.box.seal(secret, stream);
    await this.ports.commands.execute(stream, secondFactorDecider, { type: 'BeginEnrolment', accountId: principal.accountId, secret: sealed }, ctx);
    return { secret, otpauthUri: this.ports.totp.uri(secret, this.ports.issuer, principal.username) };
  }

  /** Confirms the enrolment with a current code: answers the ten backup codes, once. */
  async confirm(ctx: RequestContext, principal: Principal, code: string): Promise<{ backupCodes: string[] }> {
    const backupCodes = this.ports.totp.newBackupCodes(BACKUP_CODE_COUNT);
    const stream = streams.secondFactor(principal.accountId);
    await this.ports.commands.transact(ctx, async (attempt) => {
      await attempt.decide(stream, secondFactorDecider, (state) => ({
        type: 'ConfirmEnrolment' as const, codeValid: state.status === 'pending' && this.stepOf(state, stream, code, ctx.now) !== null,
        backupCodeHashes: backupCodes.map((c) => backupCodeHash(principal.accountId, c)),
      }));
    });
    return { backupCodes };
  }

  /** After the right password: a challenge when the account holds a second factor, else null. */
  async challengeFor(ctx: RequestContext, account: AccountView): Promise<{ challenge: string; expiresAt: string } | null> {
    if (!(await this.ports.factors.hasSecondFactor(account.id))) return null;
    const challenge = this.ports.totp.newChallenge();
    const expiresAt = new Date(ctx.now.getTime() + CHALLENGE_LIFETIME_MS);
    await this.ports.challenges.open(sha256Hex(challenge), account.id, expiresAt);
    return { challenge, expiresAt: expiresAt.toISOString() };
  }

  /** The challenge answered with a TOTP code or a backup code: a session, or a refusal (counted). */
  async verify(ctx: RequestContext, challenge: string, answer: { code?: string; backupCode?: string }) {
    const hash = sha256Hex(challenge);
    const found = await this.ports.challenges.find(hash, ctx.now);
    if (!found) throw new SecondFactorRefused(true, 'This challenge is unknown, expired or destroyed; sign in again with your password.');
    const { accountId } = found;
    const stream = streams.secondFactor(accountId);
    let passed = false;
    if (answer.code !== undefined) {
      const { value: state } = await this.ports.commands.transact(ctx, async (attempt) => (await attempt.load(stream, secondFactorDecider)).state, { wait: false });
      const step = state.status === 'active' ? this.stepOf(state, stream, answer.code, ctx.now) : null;
      passed = step !== null && (await this.ports.challenges.takeStep(accountId, step));
    } else if (answer.backupCode !== undefined) {
      const { committed } = await this.ports.commands.transact(ctx, async (attempt) => {
        await attempt.decide(stream, secondFactorDecider, { type: 'ConsumeBackupCode', hash: backupCodeHash(accountId, answer.backupCode!) });
      }, { wait: false });
      passed = committed !== null;
    }
    if (passed && (await this.ports.challenges.close(hash))) {
      const account = (await this.ports.accounts.byId(accountId))?.account;
      if (!account || !account.active) throw new SecondFactorRefused(true, 'This account cannot sign in.');
      return this.ports.sessions.openSession({ ...ctx, actor: accountId }, account);
    }
    const failures = await this.ports.challenges.fail(hash);
    if (failures >= this.ports.maxFailures) {
      if (await this.ports.challenges.close(hash)) {
        await this.ports.commands.execute(stream, secondFactorDecider, { type: 'DestroyChallenge', failures }, { ...ctx, actor: null });
      }
      throw new SecondFactorRefused(true, `Too many wrong codes: this challenge is destroyed. Sign in again with your password.`);
    }
    throw new SecondFactorRefused(false, `The code is not right (${this.ports.maxFailures - failures} attempts left on this challenge).`);
  }

  /** An administrator's reset: the account signs in with its password alone until it enrols again. */
  async reset(ctx: RequestContext, accountId: number): Promise<void> {
    await this.ports.commands.execute(streams.secondFactor(accountId), secondFactorDecider, { type: 'ResetSecondFactor' }, ctx);
    await this.ports.challenges.closeAllOf(accountId);
  }

  private stepOf(state: SecondFactorState, stream: string, code: string, now: Date): number | null {
    if (!state.secret || typeof code !== 'string') return null;
    return this.ports.totp.stepOf(this.ports.box.open(state.secret, stream), code.trim(), now);
  }
}
