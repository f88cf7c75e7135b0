import type { SealedSecret } from '../../domain/credentials/credential';

export type { SealedSecret };

/**
 * Seals recoverable secrets (stored clone credentials today) under ENCRYPTION_KEY, bound to where
 * they are kept: the associated data is the event stream's name, so a sealed value copied into
 * another stream does not open (EVENT-SOURCING trap 6). Opening picks ENCRYPTION_KEY or one of
 * VIGIL_PREVIOUS_ENCRYPTION_KEYS by the key id stored beside the ciphertext.
 */
export interface SecretBox {
  /** false while no ENCRYPTION_KEY is configured: saving any secret is refused (spec 1 §8.3). */
  readonly canSeal: boolean;
  /** Throws SecretBoxUnavailable without a key. */
  seal(plaintext: string, associatedData: string): SealedSecret;
  /** Throws SecretUnusable when no configured key has its id, or the tag does not verify. */
  open(sealed: SealedSecret, associatedData: string): string;
}

/** Sealing asked while no ENCRYPTION_KEY is configured. */
export class SecretBoxUnavailable extends Error {
  constructor() {
    super('No ENCRYPTION_KEY is configured: secrets cannot be sealed. Set ENCRYPTION_KEY or ENCRYPTION_KEY_FILE (32 random bytes in base64) and restart.');
    this.name = 'SecretBoxUnavailable';
  }
}

/** A sealed secret that cannot be opened; the message never holds key material or plaintext. */
export class SecretUnusable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretUnusable';
  }
}
