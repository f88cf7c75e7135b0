import { refuse } from '../../domain/shared/decider';
import { streams } from '../../domain/shared/streams';
import { platformKeyDecider } from '../../domain/signing/platform-key';
import type { CommandHandler } from '../command-handler';
import type { Clock } from '../ports/clock';
import type { EventStore } from '../ports/event-store';
import { SecretUnusable, type SecretBox } from '../ports/secret-box';
import type { PlatformKey, SigningKeyMaterial } from '../ports/signing';

const STREAM = streams.platformSigningKey;

/**
 * Which key signs (spec 1 §1.9, §8.3): VIGIL_SIGNING_KEY when configured; otherwise the key stored
 * sealed in the log, generated on the first use. Nothing is signed without ENCRYPTION_KEY; a stored
 * key that no configured key opens is refused with a clear problem and never replaced.
 */
export class PlatformKeys {
  private key: Promise<PlatformKey> | null = null;

  constructor(
    private readonly configuredPem: string | null,
    private readonly box: SecretBox,
    private readonly store: EventStore,
    private readonly commands: CommandHandler,
    private readonly clock: Clock,
    private readonly material: SigningKeyMaterial,
  ) {}

  /** The key that signs, generated and stored on first use when none is configured. */
  async current(): Promise<PlatformKey> {
    if (!this.key) {
      this.key = this.resolve();
      // A refusal (no ENCRYPTION_KEY, an unopenable stored key) is asked again next time: the operator may fix it.
      this.key.catch(() => { this.key = null; });
    }
    return this.key;
  }

  /** The public key's fingerprint for GET /health, without generating one: null while none exists yet. */
  async fingerprint(): Promise<string | null> {
    if (this.configuredPem) return (await this.current()).fingerprint;
    const events = await this.store.readStream(STREAM);
    return events.length ? (events[0].data as { fingerprint: string }).fingerprint : null;
  }

  private async resolve(): Promise<PlatformKey> {
    if (!this.box.canSeal) {
      throw refuse.conflict('Nothing can be signed without ENCRYPTION_KEY (spec 1 §8.3): set ENCRYPTION_KEY or ENCRYPTION_KEY_FILE and restart; set VIGIL_SIGNING_KEY as well when several instances run.');
    }
    if (this.configuredPem) return this.material.load(this.configuredPem);
    const { value: stored } = await this.commands.transact({ actor: null, now: this.clock.now() }, async (attempt) => {
      const { state } = await attempt.load(STREAM, platformKeyDecider);
      if (state) return state;
      const pem = this.material.generate();
      const key = this.material.load(pem);
      const generated = { sealed: this.box.seal(pem, STREAM), publicKeyPem: key.publicKeyPem, fingerprint: key.fingerprint };
      // no_stream: of two instances generating at once, one appends and the other reads its key on the retry.
      attempt.record(STREAM, platformKeyDecider.decide({ type: 'StoreGeneratedKey', key: generated, now: this.clock.now() }, null), 'no_stream');
      return generated;
    });
    try {
      return this.material.load(this.box.open(stored.sealed, STREAM));
    } catch (error) {
      if (!(error instanceof SecretUnusable)) throw error;
      throw refuse.conflict(`The stored platform signing key (fingerprint ${stored.fingerprint}) cannot be opened: ${error.message}. It is refused and never replaced: configure the ENCRYPTION_KEY it was sealed under (or list it in VIGIL_PREVIOUS_ENCRYPTION_KEYS), or set VIGIL_SIGNING_KEY.`);
    }
  }
}
