import { assertNever, Decider, DomainEvent, refuse } from '../shared/decider';
import { languagesRecordedByScan } from '../targets/languages';
import type { TargetKind } from '../shared/target-kind';
import { failureReason, leaseExpiry, LEASE_MS, MAX_SCAN_ATTEMPTS, retryDelayMs } from './policy';

/**
 * The Scan decider, one stream per scan (`scan-<id>`): spec 1 §3.1 held beside the code.
 *
 *   From      | Moved by                         | Condition                                  | To        | here
 *   (new)     | POST .../scan, schedule          | no scan of the target waiting (waiting.ts) | pending   | RequestScan -> ScanRequested
 *   pending   | a worker or agent claims         | due (not_before), holds the credential     | scanning  | ClaimScan -> ScanClaimed (lease starts)
 *   scanning  | result accepted                  |                                            | completed | CompleteScan -> ScanCompleted
 *   scanning  | permanent failure                |                                            | failed    | FailScan permanent -> ScanFailed (reason, AGENT_SCAN_FAILED)
 *   scanning  | transient failure, lapsed lease  | attempts left                              | pending   | FailScan transient | LapseLease -> ScanRetryScheduled (not_before)
 *   scanning  | transient failure, lapsed lease  | third attempt                              | failed    | FailScan transient | LapseLease -> ScanFailed
 *   scanning  | heartbeat                        | the claim's executor, lease not lapsed     | scanning  | RenewLease -> nothing (the lease lives in a table, ADR 0006)
 *
 * An attempt is spent when it is claimed: `attempts` is the number of the attempt running or last run
 * (0 while a new scan waits), so a lapse or a transient failure leaves it counted, and a scan waiting
 * for an executor able to hold its credential spends none. The claim of an executor that cannot hold
 * the credential is refused, so the scan stays pending (S1.3.1-20).
 */

export type ScanStatus = 'pending' | 'scanning' | 'completed' | 'failed';
export const SCAN_STATUSES: readonly ScanStatus[] = ['pending', 'scanning', 'completed', 'failed'];
export type ScanTrigger = 'manual' | 'schedule';
export type FailureKind = 'permanent' | 'transient';

export interface ScanTargetRef {
  readonly kind: TargetKind;
  readonly id: number;
}

/** What one step of a result came to: its tool and how many findings it reported. null: the step did not run. */
export interface StepSummary {
  readonly tool: string;
  readonly toolVersion: string | null;
  readonly findings: number;
}

// ---- commands ------------------------------------------------------------------------------

export interface RequestScan {
  readonly type: 'RequestScan';
  readonly scanId: number;
  readonly target: ScanTargetRef;
  readonly trigger: ScanTrigger;
  /** The scan needs a key or token (none exist yet: always false today). */
  readonly requiresCredential?: boolean;
  readonly requestedBy: number | null;
  readonly now: Date;
}

export interface ClaimScan {
  readonly type: 'ClaimScan';
  /** Who claims: `embedded:<instance>` for the built-in worker, `agent:<id>` later. */
  readonly worker: string;
  /** Whether this executor can hold a credential (a delegated agent without a verified sealing key cannot). */
  readonly holdsCredentials: boolean;
  readonly now: Date;
  readonly leaseMs?: number;
}

export interface RenewLease {
  readonly type: 'RenewLease';
  readonly worker: string;
  readonly attempt: number;
  /** The lease as the lease table holds it before this renewal. */
  readonly leaseExpiresAt: Date | string;
  readonly now: Date;
}

export interface ScanOutcomeCounts {
  readonly created: number;
  readonly resolved: number;
  readonly reopened: number;
}

export interface CompleteScan {
  readonly type: 'CompleteScan';
  readonly worker: string;
  readonly attempt: number;
  readonly now: Date;
  /** Every step of the result: a summary when present, null when it did not run. */
  readonly steps: Readonly<Record<string, StepSummary | null>>;
  /** Languages as the executor found them (normalised here), null when unknown. */
  readonly languages: readonly string[] | null;
  readonly languagesBounded: boolean;
  /** ISO 8601 duration as the executor measured it. */
  readonly duration: string | null;
  /** What the ingestion did to the backlog (in the same commit). */
  readonly outcome: ScanOutcomeCounts;
  /** Disallowed licences of the SBOM (kept for scorecards), bounded by the application. */
  readonly disallowedLicences?: ReadonlyArray<{ readonly component: string; readonly licence: string }>;
}

export interface FailScan {
  readonly type: 'FailScan';
  readonly worker: string;
  readonly attempt: number;
  readonly kind: FailureKind;
  readonly reason: string;
  readonly now: Date;
  readonly retryDelaysMs: readonly number[];
}

export interface LapseLease {
  readonly type: 'LapseLease';
  readonly attempt: number;
  readonly leaseExpiresAt: Date | string;
  readonly now: Date;
  readonly retryDelaysMs: readonly number[];
}

export type ScanCommand = RequestScan | ClaimScan | RenewLease | CompleteScan | FailScan | LapseLease;
export type ScanCommandType = ScanCommand['type'];
export const SCAN_COMMAND_TYPES: readonly ScanCommandType[] = ['RequestScan', 'ClaimScan', 'RenewLease', 'CompleteScan', 'FailScan', 'LapseLease'];

// ---- events --------------------------------------------------------------------------------

interface OfScan {
  readonly id: number;
  readonly targetKind: TargetKind;
  readonly targetId: number;
}

export interface ScanRequestedData extends OfScan {
  readonly trigger: ScanTrigger;
  readonly requiresCredential: boolean;
  readonly requestedBy: number | null;
  readonly requestedAt: string;
}

export interface ScanClaimedData extends OfScan {
  readonly attempt: number;
  readonly worker: string;
  readonly claimedAt: string;
  /** The lease as it starts; renewals move it in the lease table, not here (ADR 0006). */
  readonly leaseExpiresAt: string;
}

export interface ScanCompletedData extends OfScan {
  readonly attempt: number;
  readonly worker: string;
  readonly completedAt: string;
  readonly duration: string | null;
  readonly steps: Readonly<Record<string, StepSummary | null>>;
  /** detectedLanguages as recorded on the target: sorted vocabulary words, null = unknown (images: null). */
  readonly detectedLanguages: string[] | null;
  readonly createdCount: number;
  readonly resolvedCount: number;
  readonly reopenedCount: number;
  readonly disallowedLicences: ReadonlyArray<{ readonly component: string; readonly licence: string }>;
}

interface FailureData extends OfScan {
  readonly attempt: number;
  readonly kind: FailureKind;
  /** One line, scrubbed, at most 1,000 characters. */
  readonly reason: string;
  readonly failedAt: string;
  /** true when nobody reported: the lease lapsed. */
  readonly lapsed: boolean;
  /** The audit entry name of spec 1 §6 for a reported failure; absent for a lapse. */
  readonly audit?: 'AGENT_SCAN_FAILED';
}

export interface ScanRetryScheduledData extends FailureData {
  readonly notBefore: string;
}

export type ScanFailedData = FailureData;

export type ScanRequested = DomainEvent<'ScanRequested', ScanRequestedData>;
export type ScanClaimed = DomainEvent<'ScanClaimed', ScanClaimedData>;
export type ScanCompleted = DomainEvent<'ScanCompleted', ScanCompletedData>;
export type ScanRetryScheduled = DomainEvent<'ScanRetryScheduled', ScanRetryScheduledData>;
export type ScanFailed = DomainEvent<'ScanFailed', ScanFailedData>;
export type ScanEvent = ScanRequested | ScanClaimed | ScanCompleted | ScanRetryScheduled | ScanFailed;
export const SCAN_EVENT_TYPES: readonly ScanEvent['type'][] = ['ScanRequested', 'ScanClaimed', 'ScanCompleted', 'ScanRetryScheduled', 'ScanFailed'];


// ---- state ---------------------------------------------------------------------------------

export type ScanStateStatus = 'new' | ScanStatus;

export type ScanState =
  | { readonly status: 'new' }
  | {
    readonly status: ScanStatus;
    readonly id: number;
    readonly target: ScanTargetRef;
    readonly trigger: ScanTrigger;
    readonly requiresCredential: boolean;
    /** Attempts claimed so far (the running or last attempt's number). */
    readonly attempts: number;
    /** Claimable from (requestedAt, or the retry's not-before). */
    readonly notBefore: string;
    /** The executor holding the current or last claim. */
    readonly worker: string | null;
    readonly error: string | null;
  };

type Known = Exclude<ScanState, { status: 'new' }>;

/**
 * Which commands each status accepts (spec 1 §3.1 read row by row); decide consults it first and
 * the spec iterates it. Anything else is refused with 409: a repeated or stale report, a claim of a
 * scan that is no longer pending, a second request of one id.
 */
export const SCAN_TRANSITIONS: Readonly<Record<ScanStateStatus, readonly ScanCommandType[]>> = {
  new: ['RequestScan'],
  pending: ['ClaimScan'],
  scanning: ['RenewLease', 'CompleteScan', 'FailScan', 'LapseLease'],
  completed: [],
  failed: [],
};

// ---- decide --------------------------------------------------------------------------------

const ms = (instant: Date | string) => (instant instanceof Date ? instant.getTime() : Date.parse(instant));

function ofScan(state: Known): OfScan {
  return { id: state.id, targetKind: state.target.kind, targetId: state.target.id };
}

function request(command: RequestScan): ScanEvent[] {
  if (!Number.isSafeInteger(command.scanId) || command.scanId <= 0) throw refuse.invalid('a scan id is a positive integer');
  if (command.target.kind !== 'repository' && command.target.kind !== 'container') throw refuse.invalid('a scan targets a repository or a container image');
  if (!Number.isSafeInteger(command.target.id) || command.target.id <= 0) throw refuse.invalid('a target id is a positive integer');
  if (command.trigger !== 'manual' && command.trigger !== 'schedule') throw refuse.invalid('a scan is triggered by hand or by the schedule');
  return [{
    type: 'ScanRequested',
    data: {
      id: command.scanId, targetKind: command.target.kind, targetId: command.target.id, trigger: command.trigger,
      requiresCredential: command.requiresCredential === true, requestedBy: command.requestedBy, requestedAt: command.now.toISOString(),
    },
  }];
}

function claim(command: ClaimScan, state: Known): ScanEvent[] {
  if (ms(state.notBefore) > command.now.getTime()) {
    throw refuse.conflict(`Scan ${state.id} is claimable from ${state.notBefore} (retry delay).`);
  }
  if (state.requiresCredential && !command.holdsCredentials) {
    throw refuse.conflict(`Scan ${state.id} needs an executor able to hold its credential; it waits without spending an attempt.`);
  }
  if (state.attempts >= MAX_SCAN_ATTEMPTS) throw new Error(`scan ${state.id} is pending with ${state.attempts} attempts spent`);
  if (!command.worker) throw refuse.invalid('a claim names its executor');
  return [{
    type: 'ScanClaimed',
    data: {
      ...ofScan(state), attempt: state.attempts + 1, worker: command.worker, claimedAt: command.now.toISOString(),
      leaseExpiresAt: leaseExpiry(command.now, command.leaseMs ?? LEASE_MS),
    },
  }];
}

/** The report (or renewal) must be about the attempt running now, from the executor that claimed it. */
function checkAttempt(state: Known, attempt: number, worker: string | null, what: string): void {
  if (attempt !== state.attempts) {
    throw refuse.conflict(`Scan ${state.id} runs attempt ${state.attempts}; a ${what} for attempt ${attempt} is stale.`);
  }
  if (worker !== null && worker !== state.worker) {
    throw refuse.conflict(`Scan ${state.id} is claimed by another executor; its ${what} is not this one's to give.`);
  }
}

function renew(command: RenewLease, state: Known): ScanEvent[] {
  checkAttempt(state, command.attempt, command.worker, 'lease renewal');
  if (ms(command.leaseExpiresAt) <= command.now.getTime()) {
    throw refuse.conflict(`The lease of scan ${state.id} lapsed at ${new Date(ms(command.leaseExpiresAt)).toISOString()}.`);
  }
  return []; // operational: the lease table moves (ADR 0006)
}

function complete(command: CompleteScan, state: Known): ScanEvent[] {
  checkAttempt(state, command.attempt, command.worker, 'result');
  const { created, resolved, reopened } = command.outcome;
  return [{
    type: 'ScanCompleted',
    data: {
      ...ofScan(state), attempt: command.attempt, worker: command.worker, completedAt: command.now.toISOString(), duration: command.duration,
      steps: command.steps, detectedLanguages: languagesRecordedByScan(state.target.kind, command.languages, command.languagesBounded),
      createdCount: created, resolvedCount: resolved, reopenedCount: reopened, disallowedLicences: command.disallowedLicences ?? [],
    },
  }];
}

/** Permanent: failed. Transient (or lapsed): back to pending after the attempt's delay while attempts are left, else failed. */
function failure(state: Known, kind: FailureKind, reasonText: string, now: Date, delaysMs: readonly number[], lapsed: boolean): ScanEvent[] {
  const base = {
    ...ofScan(state), attempt: state.attempts, kind, reason: failureReason(reasonText), failedAt: now.toISOString(), lapsed,
    ...(lapsed ? {} : { audit: 'AGENT_SCAN_FAILED' as const }),
  };
  if (kind === 'transient' && state.attempts < MAX_SCAN_ATTEMPTS) {
    return [{ type: 'ScanRetryScheduled', data: { ...base, notBefore: new Date(now.getTime() + retryDelayMs(state.attempts, delaysMs)).toISOString() } }];
  }
  return [{ type: 'ScanFailed', data: base }];
}

function fail(command: FailScan, state: Known): ScanEvent[] {
  if (command.kind !== 'permanent' && command.kind !== 'transient') throw refuse.invalid('a failure is permanent or transient');
  checkAttempt(state, command.attempt, command.worker, 'failure report');
  return failure(state, command.kind, command.reason, command.now, command.retryDelaysMs, false);
}

function lapse(command: LapseLease, state: Known): ScanEvent[] {
  checkAttempt(state, command.attempt, null, 'lease lapse');
  const expiry = ms(command.leaseExpiresAt);
  if (expiry > command.now.getTime()) throw refuse.conflict(`The lease of scan ${state.id} runs until ${new Date(expiry).toISOString()}.`);
  const reason = `The lease lapsed: no heartbeat from ${state.worker ?? 'the executor'} for ${Math.round(LEASE_MS / 60_000)} minutes (until ${new Date(expiry).toISOString()}).`;
  return failure(state, 'transient', reason, command.now, command.retryDelaysMs, true);
}

export function decideScan(command: ScanCommand, state: ScanState): ScanEvent[] {
  if (!SCAN_TRANSITIONS[state.status].includes(command.type)) {
    if (state.status === 'new') throw refuse.notFound(`No such scan: ${command.type} needs a requested scan.`);
    throw refuse.conflict(`Scan ${state.id} is ${state.status}: ${command.type} does not apply.`);
  }
  if (command.type === 'RequestScan') return request(command);
  const known = state as Known;
  switch (command.type) {
    case 'ClaimScan':
      return claim(command, known);
    case 'RenewLease':
      return renew(command, known);
    case 'CompleteScan':
      return complete(command, known);
    case 'FailScan':
      return fail(command, known);
    case 'LapseLease':
      return lapse(command, known);
    default:
      return assertNever(command);
  }
}

export function evolveScan(state: ScanState, event: ScanEvent): ScanState {
  if (event.type === 'ScanRequested') {
    const d = event.data;
    return {
      status: 'pending', id: d.id, target: { kind: d.targetKind, id: d.targetId }, trigger: d.trigger, requiresCredential: d.requiresCredential,
      attempts: 0, notBefore: d.requestedAt, worker: null, error: null,
    };
  }
  if (state.status === 'new') return state;
  switch (event.type) {
    case 'ScanClaimed':
      return { ...state, status: 'scanning', attempts: event.data.attempt, worker: event.data.worker };
    case 'ScanCompleted':
      return { ...state, status: 'completed' };
    case 'ScanRetryScheduled':
      return { ...state, status: 'pending', notBefore: event.data.notBefore };
    case 'ScanFailed':
      return { ...state, status: 'failed', error: event.data.reason };
    default:
      return assertNever(event);
  }
}

export const scanDecider: Decider<ScanCommand, ScanEvent, ScanState> = {
  initialState: () => ({ status: 'new' }),
  decide: decideScan,
  evolve: evolveScan,
};
