import { assertNever, Decider, DomainEvent, refuse } from '../shared/decider';
import type { TargetKind } from '../shared/target-kind';

/**
 * "No scan of the target waiting" (spec 1 §3.1, S1.3.1-01/02) spans scan streams, so each target has
 * a reservation stream (EVENT-SOURCING trap 4, as domain/targets/uniqueness.ts does for repository
 * keys): a request reserves it in the same commit as ScanRequested, a claim releases it in the same
 * commit as ScanClaimed. Two instances requesting at once collide on this stream's revision; the loser
 * re-reads it and is refused with 409.
 *
 *   Reserve  (a request)         free: reserve    held by this scan: nothing   held by another: 409
 *   Requeue  (a retry, pending)  free: reserve    held by anyone: nothing (the retry waits anyway)
 *   Release  (a claim)           held by this scan: release   otherwise: nothing
 *
 * A scheduled request also records ScanScheduled here: the instant the target's lastScheduledScanAt
 * takes (projections/targets.ts).
 */

export interface ReserveWaiting {
  readonly type: 'Reserve';
  readonly targetKind: TargetKind;
  readonly targetId: number;
  readonly scanId: number;
  /** A scheduled round records ScanScheduled with the reservation. */
  readonly scheduledAt?: Date;
}

export interface RequeueWaiting {
  readonly type: 'Requeue';
  readonly targetKind: TargetKind;
  readonly targetId: number;
  readonly scanId: number;
}

export interface ReleaseWaiting {
  readonly type: 'Release';
  readonly targetKind: TargetKind;
  readonly targetId: number;
  readonly scanId: number;
}

export type WaitingCommand = ReserveWaiting | RequeueWaiting | ReleaseWaiting;

interface WaitingData {
  readonly targetKind: TargetKind;
  readonly targetId: number;
  readonly scanId: number;
}

export type ScanWaitingReserved = DomainEvent<'ScanWaitingReserved', WaitingData>;
export type ScanWaitingReleased = DomainEvent<'ScanWaitingReleased', WaitingData>;
export type ScanScheduled = DomainEvent<'ScanScheduled', WaitingData & { readonly scheduledAt: string }>;
export type WaitingEvent = ScanWaitingReserved | ScanWaitingReleased | ScanScheduled;

export type WaitingStatus = 'free' | 'held';
export type WaitingState = { readonly status: 'free' } | { readonly status: 'held'; readonly scanId: number };

/** Every command is accepted in both states; what it does there is above (a refusal or no event). */
export const WAITING_TRANSITIONS: Readonly<Record<WaitingStatus, readonly WaitingCommand['type'][]>> = {
  free: ['Reserve', 'Requeue', 'Release'],
  held: ['Reserve', 'Requeue', 'Release'],
};

const dataOf = (c: WaitingCommand): WaitingData => ({ targetKind: c.targetKind, targetId: c.targetId, scanId: c.scanId });

function reserve(command: ReserveWaiting, state: WaitingState): WaitingEvent[] {
  if (state.status === 'held') {
    if (state.scanId === command.scanId) return [];
    throw refuse.conflict(`Scan ${state.scanId} of this target is already waiting; a second request waits for it to start.`, undefined, { scanId: state.scanId });
  }
  const events: WaitingEvent[] = [{ type: 'ScanWaitingReserved', data: dataOf(command) }];
  if (command.scheduledAt) events.push({ type: 'ScanScheduled', data: { ...dataOf(command), scheduledAt: command.scheduledAt.toISOString() } });
  return events;
}

function requeue(command: RequeueWaiting, state: WaitingState): WaitingEvent[] {
  return state.status === 'free' ? [{ type: 'ScanWaitingReserved', data: dataOf(command) }] : [];
}

function release(command: ReleaseWaiting, state: WaitingState): WaitingEvent[] {
  return state.status === 'held' && state.scanId === command.scanId ? [{ type: 'ScanWaitingReleased', data: dataOf(command) }] : [];
}

export function decideWaiting(command: WaitingCommand, state: WaitingState): WaitingEvent[] {
  if (!WAITING_TRANSITIONS[state.status].includes(command.type)) throw new Error(`${command.type} is not handled in state ${state.status}`);
  switch (command.type) {
    case 'Reserve':
      return reserve(command, state);
    case 'Requeue':
      return requeue(command, state);
    case 'Release':
      return release(command, state);
    default:
      return assertNever(command);
  }
}

export function evolveWaiting(state: WaitingState, event: WaitingEvent): WaitingState {
  switch (event.type) {
    case 'ScanWaitingReserved':
      return { status: 'held', scanId: event.data.scanId };
    case 'ScanWaitingReleased':
      return state.status === 'held' && state.scanId === event.data.scanId ? { status: 'free' } : state;
    case 'ScanScheduled':
      return state;
    default:
      return assertNever(event);
  }
}

export const waitingDecider: Decider<WaitingCommand, WaitingEvent, WaitingState> = {
  initialState: () => ({ status: 'free' }),
  decide: decideWaiting,
  evolve: evolveWaiting,
};
