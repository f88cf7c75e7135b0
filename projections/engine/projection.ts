import { RecordedEvent } from '../../application/ports/event-store';
import { RowWriter } from './row-writer';

/**
 * One read model. `apply` writes its rows for a batch of events, through a RowWriter on the transaction in
 * which the runner also moves the checkpoint, so every event counts exactly once (trap 2).
 * Rows must derive only from events (ids, times from metadata.at) so a rebuild is identical.
 */
export interface Projection {
  readonly name: string;
  /** Event types it reads; others only move its checkpoint. */
  readonly handles: ReadonlySet<string> | 'all';
  /** With handles 'all': types it leaves out. */
  readonly ignores?: ReadonlySet<string>;
  /** Tables it owns: emptied by a rebuild. */
  readonly tables: readonly string[];
  apply(writer: RowWriter, events: RecordedEvent[]): Promise<void>;
}

export function handledBy(projection: Projection, type: string): boolean {
  return projection.handles === 'all' ? !projection.ignores?.has(type) : projection.handles.has(type);
}
