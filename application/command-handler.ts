import { Decider, DomainError, DomainEvent, fold } from '../domain/shared/decider';
import { AppendResult, EventStore, ExpectedRevision, StreamAppend, WrongExpectedRevision } from './ports/event-store';
import { EventMetadata, NewEvent, RecordedEvent } from '../domain/shared/event-envelope';
import { IdGenerator } from './ports/ids';
import { CoalescingAppender } from './shared/coalescing-appender';

/** Who asks and from where: becomes every event's metadata (auditors replay it). */
export interface RequestContext {
  actor: number | null;
  address?: string | null;
  userAgent?: string | null;
  correlationId?: string | null;
  now: Date;
}

/** Waits for projections to reach an append (read-your-writes, trap 3). */
export interface ReadModelBarrier {
  waitFor(result: AppendResult, types: readonly string[]): Promise<void>;
}

export interface Decided<E extends DomainEvent, S> {
  events: E[];
  state: S;
  /** Revision the stream reached (or kept, when nothing was decided). */
  revision: number | null;
  append: AppendResult | null;
}

/** Decisions on several streams, appended in one commit. */
export type StreamDecisions = ReadonlyArray<{ stream: string; events: DomainEvent[]; expectedRevision: ExpectedRevision }>;

/** A commit's result and the distinct event types whose read models must reach it. */
export interface Committed {
  result: AppendResult;
  types: string[];
}

export function metadataOf(ctx: RequestContext): EventMetadata {
  return { actor: ctx.actor, address: ctx.address ?? null, userAgent: ctx.userAgent ?? null, correlationId: ctx.correlationId ?? null, at: ctx.now.toISOString() };
}

/**
 * The one generic path of a command: load the stream, fold it, decide, append with the revision
 * read (trap 5), then wait until the read models have the events. A conflict is retried with
 * fresh state a few times, unless the caller pinned the revision it read (If-Match): then the
 * conflict is the caller's to hear.
 */
export class CommandHandler {
  private readonly grouped: CoalescingAppender;

  constructor(private readonly store: EventStore, private readonly ids: IdGenerator, private readonly barrier: ReadModelBarrier) {
    this.grouped = new CoalescingAppender(store);
  }

  async load<E extends DomainEvent, S>(stream: string, decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>): Promise<{ state: S; revision: number | null; events: RecordedEvent[] }> {
    const recorded = await this.store.readStream(stream);
    const state = fold(decider, recorded.map((r) => ({ type: r.type, data: r.data }) as E));
    return { state, revision: recorded.length ? recorded[recorded.length - 1].revision : null, events: recorded };
  }

  async execute<C, E extends DomainEvent, S>(
    stream: string,
    decider: Decider<C, E, S>,
    command: C | ((state: S) => C),
    ctx: RequestContext,
    options: { expectedRevision?: number; onConflict?: () => DomainError } = {},
  ): Promise<Decided<E, S>> {
    for (let attempt = 0; ; attempt++) {
      const { state, revision } = await this.load(stream, decider);
      if (options.expectedRevision !== undefined && options.expectedRevision !== revision) {
        throw options.onConflict?.() ?? new WrongExpectedRevision(stream, options.expectedRevision, revision);
      }
      const cmd = typeof command === 'function' ? (command as (s: S) => C)(state) : command;
      const events = decider.decide(cmd, state);
      if (events.length === 0) return { events, state, revision, append: null };
      try {
        const append = await this.store.append(stream, this.toNew(events, ctx), revision ?? 'no_stream');
        await this.barrier.waitFor(append, events.map((e) => e.type));
        return { events, state: events.reduce(decider.evolve, state), revision: append.nextRevision, append };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision)) throw error;
        if (options.expectedRevision !== undefined) throw options.onConflict?.() ?? error;
        if (attempt >= 4) throw error;
      }
    }
  }

  /** Several streams in one commit, for decisions already taken (e.g. a target and its key reservation). */
  async appendAll(appends: StreamDecisions, ctx: RequestContext): Promise<AppendResult> {
    const committed = await this.commit(appends, ctx);
    await this.readYourWrites(committed);
    return committed.result;
  }

  /**
   * appendAll without the wait for the read models, for a caller holding a large decision (a
   * 50,000-finding report): a suspended async function keeps its locals alive, so that caller
   * commits from a frame that ends, lets go of the decision, then calls readYourWrites.
   */
  async commit(appends: StreamDecisions, ctx: RequestContext): Promise<Committed> {
    const types = new Set<string>();
    for (const a of appends) for (const e of a.events) types.add(e.type);
    const result = await this.store.appendMany(this.batchOf(appends, ctx));
    return { result, types: [...types] };
  }

  /** Waits until the read models that handle the committed event types have them (trap 3). */
  async readYourWrites(committed: Committed): Promise<void> {
    await this.barrier.waitFor(committed.result, committed.types);
  }

  private batchOf(appends: StreamDecisions, ctx: RequestContext): StreamAppend[] {
    const metadata = metadataOf(ctx);
    return appends.filter((a) => a.events.length).map((a) => ({ stream: a.stream, expectedRevision: a.expectedRevision, events: this.toNew(a.events, ctx, metadata) }));
  }

  /**
   * appendAll for appends that cannot conflict with anybody's (new streams of their own), grouped
   * with the ones arriving meanwhile into one commit (application/shared/coalescing-appender.ts).
   */
  async appendGrouped(appends: Array<{ stream: string; events: DomainEvent[]; expectedRevision: ExpectedRevision }>, ctx: RequestContext): Promise<AppendResult> {
    const metadata = metadataOf(ctx);
    const batch: StreamAppend[] = appends.filter((a) => a.events.length).map((a) => ({ stream: a.stream, expectedRevision: a.expectedRevision, events: this.toNew(a.events, ctx, metadata) }));
    const result = await this.grouped.append(batch);
    await this.barrier.waitFor(result, appends.flatMap((a) => a.events.map((e) => e.type)));
    return result;
  }

  toNew(events: DomainEvent[], ctx: RequestContext, metadata: EventMetadata = metadataOf(ctx)): NewEvent[] {
    return events.map((e) => ({ id: this.ids.uuid(), type: e.type, data: e.data, metadata }));
  }
}
