import { assertNever, Decider, DomainEvent, refuse } from '../shared/decider';

/**
 * "A repository target is unique on (identity, branch, sub-path)" spans target streams, so each key gets
 * its own reservation stream (EVENT-SOURCING trap 4): the application appends here with the revision it
 * read (no_stream for a key never used), then registers the target. Two instances racing for one key
 * collide on that append; the loser re-reads and is refused.
 *
 * Reserve and Release are idempotent for the holder, so a handler that failed between this stream and
 * the target's can simply retry.
 */

export const TARGET_ALREADY_REGISTERED = 'target-already-registered';

export interface ReserveTargetKey {
  readonly type: 'Reserve';
  readonly key: string;
  readonly targetId: number;
}

export interface ReleaseTargetKey {
  readonly type: 'Release';
  readonly key: string;
  readonly targetId: number;
}

export type TargetKeyCommand = ReserveTargetKey | ReleaseTargetKey;

export type TargetKeyReserved = DomainEvent<'TargetKeyReserved', { readonly key: string; readonly targetId: number }>;
export type TargetKeyReleased = DomainEvent<'TargetKeyReleased', { readonly key: string; readonly targetId: number }>;
export type TargetKeyEvent = TargetKeyReserved | TargetKeyReleased;

export type TargetKeyStatus = 'free' | 'held';

export type TargetKeyState =
  | { readonly status: 'free' }
  | { readonly status: 'held'; readonly targetId: number };

/** Both commands are accepted in both states; what they do there is below (a refusal or no event). */
export const targetKeyTransitions: Readonly<Record<TargetKeyStatus, readonly TargetKeyCommand['type'][]>> = {
  free: ['Reserve', 'Release'],
  held: ['Reserve', 'Release'],
};

function reserve(command: ReserveTargetKey, state: TargetKeyState): TargetKeyEvent[] {
  if (state.status === 'held') {
    if (state.targetId === command.targetId) return [];
    // The application strips existingRepositoryId (and names no target) when the caller cannot see it.
    throw refuse.conflict(
      `repository ${state.targetId} is already registered with this URL, branch and sub-path`,
      TARGET_ALREADY_REGISTERED,
      { existingRepositoryId: state.targetId },
    );
  }
  return [{ type: 'TargetKeyReserved', data: { key: command.key, targetId: command.targetId } }];
}

/** Releasing a key someone else holds, or nobody, records nothing: only the holder gives it up. */
function release(command: ReleaseTargetKey, state: TargetKeyState): TargetKeyEvent[] {
  if (state.status !== 'held' || state.targetId !== command.targetId) return [];
  return [{ type: 'TargetKeyReleased', data: { key: command.key, targetId: command.targetId } }];
}

export function decideTargetKey(command: TargetKeyCommand, state: TargetKeyState): TargetKeyEvent[] {
  if (!targetKeyTransitions[state.status].includes(command.type)) {
    throw new Error(`${command.type} is not handled in state ${state.status}`);
  }
  switch (command.type) {
    case 'Reserve':
      return reserve(command, state);
    case 'Release':
      return release(command, state);
    default:
      return assertNever(command);
  }
}

export function evolveTargetKey(state: TargetKeyState, event: TargetKeyEvent): TargetKeyState {
  switch (event.type) {
    case 'TargetKeyReserved':
      return { status: 'held', targetId: event.data.targetId };
    case 'TargetKeyReleased':
      return { status: 'free' };
  }
}

export const targetKeyDecider: Decider<TargetKeyCommand, TargetKeyEvent, TargetKeyState> = {
  initialState: () => ({ status: 'free' }),
  decide: decideTargetKey,
  evolve: evolveTargetKey,
};
