import { ActivityWindow } from './shared/activity-window';
import { Decider, DomainError, DomainEvent, fold } from '../domain/shared/decider';
import { EventMetadata, NewEvent, RecordedEvent } from '../domain/shared/event-envelope';
import { AppendResult, EventStore, ExpectedRevision, StreamAppend, WrongExpectedRevision } from './ports/event-store';
import { IdGenerator } from './ports/ids';
import { CoalescingAppender } from './shared/coalescing-appender';
import { RetryPolicy, STANDARD_RETRY } from './shared/retry-policy';

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

/** A decision on one stream: its events and the revision it was taken at. */
export interface StreamDecision {
  stream: string;
  events: DomainEvent[];
  expectedRevision: ExpectedRevision;
}

/** Decisions on several streams, appended in one commit. */
export type StreamDecisions = ReadonlyArray<StreamDecision>;

/** A commit's result and the distinct event types whose read models must reach it. */
export interface Committed {
  result: AppendResult;
  types: string[];
}

/** What a unit of work decided: its own value, the commit (null when nothing was decided). */
export interface Transacted<T> {
  value: T;
  committed: Committed | null;
}

export function metadataOf(ctx: RequestContext): EventMetadata {
  return { actor: ctx.actor, address: ctx.address ?? null, userAgent: ctx.userAgent ?? null, correlationId: ctx.correlationId ?? null, at: ctx.now.toISOString() };
}

/**
 * One attempt of a unit of work: the streams it read (with the revisions read) and the decisions
 * it took. The handler commits the decisions together, each with the revision its stream was read
 * at, so a concurrent change to any of them fails the commit (trap 5) and the work runs again.
 */
export class Attempt {
  readonly decisions: StreamDecision[] = [];

  constructor(private readonly store: EventStore, readonly number: number) {}

  /** The stream folded by the decider, with the revision read (null: no stream). */
  async load<E extends DomainEvent, S>(stream: string, decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>): Promise<{ state: S; revision: number | null; events: RecordedEvent[] }> {
    const recorded = await this.store.readStream(stream);
    const state = fold(decider, recorded.map((r) => ({ type: r.type, data: r.data }) as E));
    return { state, revision: recorded.length ? recorded[recorded.length - 1].revision : null, events: recorded };
  }

  /**
   * Several streams folded by one decider, in the order asked, with the revisions read: one query
   * when the store reads streams together (a claim of sixteen scans reads sixteen streams at once).
   */
  async loadMany<E extends DomainEvent, S>(streams: readonly string[], decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>): Promise<Array<{ state: S; revision: number | null; events: RecordedEvent[] }>> {
    if (streams.length < 2 || !this.store.readStreams) return Promise.all(streams.map((s) => this.load(s, decider)));
    const found = await this.store.readStreams(streams);
    return streams.map((stream) => {
      const recorded = found.get(stream) ?? [];
      const state = fold(decider, recorded.map((r) => ({ type: r.type, data: r.data }) as E));
      return { state, revision: recorded.length ? recorded[recorded.length - 1].revision : null, events: recorded };
    });
  }

  /**
   * Load, decide and keep the decision: the state table of the decider answers. `command` may be
   * built from the state read. Answers the events and the state they lead to.
   */
  async decide<C, E extends DomainEvent, S>(stream: string, decider: Decider<C, E, S>, command: C | ((state: S) => C)): Promise<{ events: E[]; state: S; revision: number | null }> {
    const { state, revision } = await this.load(stream, decider);
    const cmd = typeof command === 'function' ? (command as (s: S) => C)(state) : command;
    const events = decider.decide(cmd, state);
    this.record(stream, events, revision ?? 'no_stream');
    return { events, state: events.reduce(decider.evolve, state), revision };
  }

  /** A decision taken outside a decider (a reservation read by the caller, a record of its own). */
  record(stream: string, events: DomainEvent[], expectedRevision: ExpectedRevision): void {
    if (events.length) this.decisions.push({ stream, events, expectedRevision });
  }
}

/**
 * The one path of a command (EVENT-SOURCING.md): read the streams, decide with the pure deciders,
 * append every decision with the revision it was read at, in one commit, then wait until the read
 * models have the events (trap 3). A conflict runs the whole unit of work again on fresh state,
 * under one retry policy (bounded attempts, jittered back-off), unless the caller pinned the
 * revision it read (If-Match): then the conflict is the caller's to hear. No service appends or
 * retries on its own.
 */
export class CommandHandler {
  private readonly grouped: CoalescingAppender;

  constructor(
    private readonly store: EventStore,
    private readonly ids: IdGenerator,
    private readonly barrier: ReadModelBarrier,
    private readonly retry: RetryPolicy = STANDARD_RETRY,
    /** Commands in flight make the process busy: background drains pace themselves meanwhile. */
    readonly activity: ActivityWindow = new ActivityWindow(1000),
  ) {
    this.grouped = new CoalescingAppender(store);
  }

  /**
   * Runs `work` until its decisions commit (or it throws): each attempt reads afresh. `wait: false`
   * leaves the wait for the read models to the caller (`readYourWrites`), for one holding a large
   * decision that must be let go first (a 50,000-finding report: a suspended async function keeps
   * its locals alive). `conflict` turns a lost race into the caller's refusal instead of a retry.
   */
  async transact<T>(ctx: RequestContext, work: (attempt: Attempt) => Promise<T>, options: { wait?: boolean; conflict?: (error: WrongExpectedRevision) => Error } = {}): Promise<Transacted<T>> {
    return this.activity.around(() => this.attempts(ctx, work, options));
  }

  private async attempts<T>(ctx: RequestContext, work: (attempt: Attempt) => Promise<T>, options: { wait?: boolean; conflict?: (error: WrongExpectedRevision) => Error }): Promise<Transacted<T>> {
    for (let n = 1; ; n++) {
      const attempt = new Attempt(this.store, n);
      const value = await work(attempt);
      if (attempt.decisions.length === 0) return { value, committed: null };
      try {
        const committed = await this.commit(attempt.decisions, ctx);
        if (options.wait !== false) await this.readYourWrites(committed);
        return { value, committed };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevision)) throw error;
        if (options.conflict) throw options.conflict(error);
        if (n >= this.retry.attempts) throw error;
        await this.retry.pause(n);
      }
    }
  }

  /**
   * One stream: load, decide, append with the revision read. `expectedRevision` pins the revision
   * the caller read (If-Match): a stream that moved since answers `onConflict()` and nothing is retried.
   */
  async execute<C, E extends DomainEvent, S>(
    stream: string,
    decider: Decider<C, E, S>,
    command: C | ((state: S) => C),
    ctx: RequestContext,
    options: { expectedRevision?: number; onConflict?: () => DomainError } = {},
  ): Promise<{ events: E[]; state: S; revision: number | null; append: AppendResult | null }> {
    const pinned = options.expectedRevision;
    const refusal = (error: WrongExpectedRevision) => options.onConflict?.() ?? error;
    const { value, committed } = await this.transact(ctx, async (attempt) => {
      if (pinned !== undefined) {
        const { revision } = await attempt.load(stream, decider);
        if (revision !== pinned) throw refusal(new WrongExpectedRevision(stream, pinned, revision));
      }
      return attempt.decide(stream, decider, command);
    }, pinned === undefined ? {} : { conflict: refusal });
    const revision = committed ? committed.result.nextRevision : value.revision;
    return { events: value.events, state: value.state, revision, append: committed?.result ?? null };
  }

  /** Decisions already taken (records of their own, new streams): one commit, then the read models. */
  async appendAll(appends: StreamDecisions, ctx: RequestContext): Promise<AppendResult> {
    return this.activity.around(async () => {
      const committed = await this.commit(appends, ctx);
      await this.readYourWrites(committed);
      return committed.result;
    });
  }

  /** Waits until the read models that handle the committed event types have them (trap 3). */
  async readYourWrites(committed: Committed): Promise<void> {
    await this.activity.around(() => this.barrier.waitFor(committed.result, committed.types));
  }

  /**
   * appendAll for appends that cannot conflict with anybody's (new streams of their own), grouped
   * with the ones arriving meanwhile into one commit (application/shared/coalescing-appender.ts).
   */
  async appendGrouped(appends: StreamDecisions, ctx: RequestContext): Promise<AppendResult> {
    return this.activity.around(async () => {
      const result = await this.grouped.append(this.batchOf(appends, ctx));
      await this.barrier.waitFor(result, appends.flatMap((a) => a.events.map((e) => e.type)));
      return result;
    });
  }

  private async commit(appends: StreamDecisions, ctx: RequestContext): Promise<Committed> {
    const types = new Set<string>();
    for (const a of appends) for (const e of a.events) types.add(e.type);
    const batch = this.batchOf(appends, ctx);
    const result = batch.length === 1 ? await this.store.append(batch[0].stream, batch[0].events, batch[0].expectedRevision) : await this.store.appendMany(batch);
    return { result, types: [...types] };
  }

  private batchOf(appends: StreamDecisions, ctx: RequestContext): StreamAppend[] {
    const metadata = metadataOf(ctx);
    return appends.filter((a) => a.events.length).map((a) => ({ stream: a.stream, expectedRevision: a.expectedRevision, events: this.toNew(a.events, metadata) }));
  }

  private toNew(events: DomainEvent[], metadata: EventMetadata): NewEvent[] {
    return events.map((e) => ({ id: this.ids.uuid(), type: e.type, data: e.data, metadata }));
  }
}
