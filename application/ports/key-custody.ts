/**
 * External custody of the data keys that seal stored secrets (issue #14): a Vault-compatible
 * transit engine wraps and unwraps them; the data keys themselves are never stored in clear.
 * infrastructure/crypto/vault-transit.ts implements it.
 */
export interface KeyCustody {
  /** Where the key lives, for messages and the record of a wrapped key (no secret). */
  readonly name: string;
  /** Refuses (throws KeyCustodyRefused) a transit key that is not derived, or one that cannot be read. */
  checkKey(): Promise<void>;
  /** The data key wrapped under the custody key, bound to `context`. */
  wrap(dataKey: Buffer, context: string): Promise<string>;
  unwrap(wrapped: string, context: string): Promise<Buffer>;
}

export class KeyCustodyRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyCustodyRefused';
  }
}
