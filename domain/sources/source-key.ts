import { assertNever, Decider, DomainEvent } from '../shared/decider';

/**
 * "One key names one source" spans source streams, so each integration key has a reservation stream
 * of its own (`source-key-<apiKeyId>`, EVENT-SOURCING trap 4), appended in the commit of the source's
 * own event with the revision read: two governors racing to give one key to two sources collide
 * there. Whether a key held by another source may be taken is the source service's question (it
 * reads the holder's stream); this stream only records who holds the key.
 */
export type SourceKeyEvent =
  | DomainEvent<'SourceKeyAssigned', { apiKeyId: number; slug: string }>
  | DomainEvent<'SourceKeyReleased', { apiKeyId: number; slug: string }>;

export type SourceKeyCommand =
  | { type: 'AssignSourceKey'; apiKeyId: number; slug: string }
  | { type: 'ReleaseSourceKey'; apiKeyId: number; slug: string };

/** The slug of the source holding the key, null when free. */
export interface SourceKeyState { slug: string | null }

export const sourceKeyDecider: Decider<SourceKeyCommand, SourceKeyEvent, SourceKeyState> = {
  initialState: () => ({ slug: null }),
  decide(command, state) {
    switch (command.type) {
      // Assigning a key to the source that holds it records nothing.
      case 'AssignSourceKey':
        return state.slug === command.slug ? [] : [{ type: 'SourceKeyAssigned', data: { apiKeyId: command.apiKeyId, slug: command.slug } }];
      // Only the holder releases: a source declared again after it was removed may name a key it
      // once held and another source took since; releasing it would free that source's hold.
      case 'ReleaseSourceKey':
        return state.slug === command.slug ? [{ type: 'SourceKeyReleased', data: { apiKeyId: command.apiKeyId, slug: command.slug } }] : [];
      default:
        return assertNever(command);
    }
  },
  evolve: (_state, event) => ({ slug: event.type === 'SourceKeyAssigned' ? event.data.slug : null }),
};
