import { SealedSecret, SecretBox } from '../../application/ports/secret-box';
import { AesGcmSecretBox } from './secret-box';

/**
 * The secret box every context seals with: the local ENCRYPTION_KEY from the start, or, under
 * external key custody, the data keys the transit engine unwrapped before Vigil listens
 * (application/credentials/data-key-custody.ts). One instance shared by the composition root.
 */
export class KeyRingSecretBox implements SecretBox {
  private box: AesGcmSecretBox;

  constructor(current: Buffer | null, previous: readonly Buffer[] = []) {
    this.box = new AesGcmSecretBox(current, previous);
  }

  /** Puts the unwrapped keys in place: `current` seals, every key opens. */
  load(current: Buffer, previous: readonly Buffer[]): void {
    this.box = new AesGcmSecretBox(current, previous);
  }

  get canSeal(): boolean {
    return this.box.canSeal;
  }

  seal(plaintext: string, associatedData: string): SealedSecret {
    return this.box.seal(plaintext, associatedData);
  }

  open(sealed: SealedSecret, associatedData: string): string {
    return this.box.open(sealed, associatedData);
  }
}
