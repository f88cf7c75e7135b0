import { Knex } from 'knex';
import { RecordedEvent } from '../../application/ports/event-store';
import { Database } from '../../infrastructure/db/database';

/**
 * One read model. `apply` writes its rows for a batch of events inside the transaction in
 * which the runner also moves the checkpoint, so every event counts exactly once (trap 2).
 * Rows must derive only from events (ids, times from metadata.at) so a rebuild is identical.
 */
export interface Projection {
  readonly name: string;
  /** Event types it reads; others only move its checkpoint. */
  readonly handles: ReadonlySet<string> | 'all';
  /** Tables it owns: emptied by a rebuild. */
  readonly tables: readonly string[];
  apply(trx: Knex.Transaction, events: RecordedEvent[], db: Database): Promise<void>;
}

export function handledBy(projection: Projection, type: string): boolean {
  return projection.handles === 'all' || projection.handles.has(type);
}
