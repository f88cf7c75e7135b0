import {
  ANY, BACKWARDS, END, EventStoreDBClient, FORWARDS, jsonEvent, NO_STREAM, START as ESDB_START, StreamNotFoundError, WrongExpectedVersionError,
} from '@eventstore/db-client';
import { AppendResult, EventStore, ExpectedRevision, StreamAppend, WrongExpectedRevision } from '../../application/ports/event-store';
import { Cursor, EventMetadata, NewEvent, RecordedEvent, START } from '../../domain/shared/event-envelope';

/**
 * The event log in EventStoreDB / KurrentDB (VIGIL_EVENTSTORE_URL), through @eventstore/db-client.
 * Cursors are the $all positions: commit position, then prepare position. Checkpoints stay in
 * the SQL read database next to the rows they describe (ADR 0003). EventStoreDB has no
 * transaction across streams: appendMany appends stream by stream in the order given, so callers
 * put the stream that guards a set rule (a reservation) first; see ADR 0002.
 */
export class EsdbEventStore implements EventStore {
  private readonly client: EventStoreDBClient;

  constructor(connectionString: string) {
    this.client = EventStoreDBClient.connectionString(connectionString.replace(/^kurrent(db)?(\+discover)?:\/\//i, (_m, _db, d) => `esdb${d ?? ''}://`));
  }

  async append(stream: string, events: NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    try {
      const result = await this.client.appendToStream(
        stream,
        events.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data as never, metadata: e.metadata as never })),
        { expectedRevision: expectedRevision === 'no_stream' ? NO_STREAM : expectedRevision === 'any' ? ANY : BigInt(expectedRevision) },
      );
      return {
        nextRevision: Number(result.nextExpectedRevision),
        cursor: { commit: String(result.position?.commit ?? 0n), position: Number(result.position?.prepare ?? 0n) },
      };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = typeof error.actualVersion === 'bigint' ? Number(error.actualVersion) : null;
        throw new WrongExpectedRevision(stream, expectedRevision, actual);
      }
      throw error;
    }
  }

  async appendMany(appends: StreamAppend[]): Promise<AppendResult> {
    let last: AppendResult | null = null;
    for (const a of appends) last = await this.append(a.stream, a.events, a.expectedRevision);
    if (!last) throw new Error('appendMany: nothing to append');
    return last;
  }

  async readStream<T = unknown>(stream: string): Promise<RecordedEvent<T>[]> {
    const out: RecordedEvent<T>[] = [];
    try {
      for await (const resolved of this.client.readStream(stream, { direction: FORWARDS, fromRevision: ESDB_START })) {
        if (resolved.event) out.push(this.toRecorded<T>(resolved.event, resolved.commitPosition));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return out;
  }

  async readAll(after: Cursor, limit: number): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    const from = after.position === 0 && after.commit === '0' ? ESDB_START : { commit: BigInt(after.commit), prepare: BigInt(after.position) };
    for await (const resolved of this.client.readAll({ fromPosition: from, direction: FORWARDS, maxCount: limit + 1 })) {
      const e = resolved.event;
      if (!e || e.type.startsWith('$') || e.streamId.startsWith('$')) continue;
      const cursor = { commit: String(e.position?.commit ?? 0n), position: Number(e.position?.prepare ?? 0n) };
      if (cursor.commit === after.commit && cursor.position === after.position) continue; // fromPosition is inclusive
      out.push(this.toRecorded(e, undefined));
      if (out.length === limit) break;
    }
    return out;
  }

  async head(): Promise<Cursor> {
    for await (const resolved of this.client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1 })) {
      const p = resolved.event?.position;
      if (p) return { commit: String(p.commit), position: Number(p.prepare) };
    }
    return START;
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }

  private toRecorded<T>(e: { id: string; streamId: string; revision: bigint; type: string; data: unknown; metadata: unknown; position?: { commit: bigint; prepare: bigint } }, commit: bigint | undefined): RecordedEvent<T> {
    return {
      id: e.id, stream: e.streamId, revision: Number(e.revision), type: e.type, data: e.data as T, metadata: e.metadata as EventMetadata,
      cursor: { commit: String(e.position?.commit ?? commit ?? 0n), position: Number(e.position?.prepare ?? 0n) },
    };
  }
}
