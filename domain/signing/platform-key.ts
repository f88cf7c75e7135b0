import type { SealedSecret } from '../credentials/credential';
import type { Decider, DomainEvent } from '../shared/decider';

/**
 * The platform signing key when no VIGIL_SIGNING_KEY is configured (spec 1 §8.3): generated on first
 * use, its private half sealed under ENCRYPTION_KEY (the stream name as associated data, trap 6),
 * stored once. A second key is never stored: a stored key that no configured key opens is refused,
 * never replaced (S1.8.3-16), and two instances racing to store one keep the first (no_stream).
 */
export type PlatformSigningKeyGenerated = DomainEvent<
  'PlatformSigningKeyGenerated',
  { sealed: SealedSecret; publicKeyPem: string; fingerprint: string; at: string }
>;

export interface StoredKey {
  sealed: SealedSecret;
  publicKeyPem: string;
  fingerprint: string;
}

export type PlatformKeyState = StoredKey | null;

export interface StoreGeneratedKey {
  type: 'StoreGeneratedKey';
  key: StoredKey;
  now: Date;
}

export const platformKeyDecider: Decider<StoreGeneratedKey, PlatformSigningKeyGenerated, PlatformKeyState> = {
  initialState: () => null,
  // Once stored, the key stays: nothing to decide (the caller then uses the stored one).
  decide: (command, state) => (state ? [] : [{ type: 'PlatformSigningKeyGenerated', data: { ...command.key, at: command.now.toISOString() } }]),
  evolve: (state, event) => state ?? { sealed: event.data.sealed, publicKeyPem: event.data.publicKeyPem, fingerprint: event.data.fingerprint },
};
