import { RecordedEvent } from '../../domain/shared/event-envelope';
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
  /**
   * Catch-up and rebuilds run each lane in its own loop, at the same time: a projection whose work
   * is mostly this process's CPU (the audit chain's hashing) gets a lane of its own, so that it
   * computes while the others wait on the database. Default: one shared lane. Live steps are unchanged.
   */
  readonly lane?: string;
  apply(writer: RowWriter, events: RecordedEvent[]): Promise<void>;
}

/** The projections grouped by lane, in their order. */
export function lanesOf(projections: readonly Projection[]): Projection[][] {
  const lanes = new Map<string, Projection[]>();
  for (const p of projections) {
    const lane = p.lane ?? 'main';
    if (!lanes.has(lane)) lanes.set(lane, []);
    lanes.get(lane)!.push(p);
  }
  return [...lanes.values()];
}

export function handledBy(projection: Projection, type: string): boolean {
  return projection.handles === 'all' ? !projection.ignores?.has(type) : projection.handles.has(type);
}
