import { siemConfigDecider } from '../../domain/siem/config';
import { fold } from '../../domain/shared/decider';
import { streams } from '../../domain/shared/streams';
import { EventStore } from '../ports/event-store';
import { SecretBox } from '../ports/secret-box';
import { SiemSecrets } from './ports';

/** The webhook's Authorization header, opened from the siem-config stream (the only place it is kept, sealed). */
export class StreamSiemSecrets implements SiemSecrets {
  constructor(private readonly store: EventStore, private readonly box: SecretBox) {}

  async authorization(): Promise<string | null> {
    const events = await this.store.readStream(streams.siemConfig);
    const state = fold(siemConfigDecider, events as never);
    const sealed = state.config?.authorization;
    return sealed ? this.box.open(sealed, streams.siemConfig) : null;
  }
}
