import { streams } from '../../domain/shared/streams';
import { CommandHandler } from '../command-handler';
import { Clock } from '../ports/clock';
import { EventStore } from '../ports/event-store';
import { KeyCustody, KeyCustodyRefused } from '../ports/key-custody';

/** A data key wrapped by the custody: its id (as sealed values name it) and the transit ciphertext. */
export interface DataKeyWrapped { kid: string; wrapped: string; custody: string }

export interface DataKeyPorts {
  custody: KeyCustody;
  store: Pick<EventStore, 'readStream'>;
  commands: CommandHandler;
  clock: Clock;
  /** Where the unwrapped keys go: `current` seals, all open (infrastructure/crypto/key-ring-secret-box.ts). */
  ring: { load(current: Buffer, previous: readonly Buffer[]): void };
  /** Local keys (ENCRYPTION_KEY, VIGIL_PREVIOUS_ENCRYPTION_KEYS) kept for opening what they sealed before custody. */
  localKeys: readonly Buffer[];
  newDataKey(): Buffer;
  keyIdOf(key: Buffer): string;
}

/** The context a data key is wrapped under (the transit key is derived): its own id, so a wrapped key opens only as itself. */
const contextOf = (kid: string) => `vigil data key ${kid}`;

/**
 * External key custody at start (issue #14; spec 1 §8.3): the transit key must be derived; the
 * installation's data key is created once (random, wrapped by the transit engine, the wrapped
 * form recorded on the `data-keys` stream, never the key) and unwrapped by every instance as it
 * starts. Stored secrets are sealed under it; nothing is sealed until it is unwrapped.
 */
export class DataKeyCustody {
  constructor(private readonly ports: DataKeyPorts) {}

  async unlock(): Promise<{ kid: string; created: boolean }> {
    const { custody } = this.ports;
    await custody.checkKey();
    let recorded = await this.read();
    let created = false;
    if (recorded.length === 0) {
      const key = this.ports.newDataKey();
      const kid = this.ports.keyIdOf(key);
      const wrapped = await custody.wrap(key, contextOf(kid));
      const { committed } = await this.ports.commands.transact({ actor: null, now: this.ports.clock.now() }, async (attempt) => {
        attempt.record(streams.dataKeys, [{ type: 'DataKeyWrapped', data: { kid, wrapped, custody: custody.name } satisfies DataKeyWrapped }], 'no_stream');
      }, { wait: false, conflict: (e) => e }).catch((error) => {
        if (error?.name === 'WrongExpectedRevision') return { committed: null }; // another instance created it first: use that one
        throw error;
      });
      created = committed !== null;
      recorded = await this.read();
    }
    const keys: Buffer[] = [];
    for (const { kid, wrapped } of recorded) {
      const key = await custody.unwrap(wrapped, contextOf(kid));
      if (key.length !== 32 || this.ports.keyIdOf(key) !== kid) throw new KeyCustodyRefused(`The transit engine unwrapped data key ${kid} into another key; refusing to use it.`);
      keys.push(key);
    }
    const current = keys[keys.length - 1];
    this.ports.ring.load(current, [...keys.slice(0, -1), ...this.ports.localKeys]);
    return { kid: recorded[recorded.length - 1].kid, created };
  }

  private async read(): Promise<DataKeyWrapped[]> {
    return (await this.ports.store.readStream(streams.dataKeys)).filter((e) => e.type === 'DataKeyWrapped').map((e) => e.data as DataKeyWrapped);
  }
}
