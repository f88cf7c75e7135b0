import { FeedRefusal } from '../../domain/enrichment/feed-refusal';
import {
  EpssScoresSynchronised, FeedName, FeedRefused, FEEDS, IssueKevListed, KEV_LISTED_SIEM, KevCatalogueSynchronised, KevEntriesDelisted, KevEntriesListed,
} from '../../domain/enrichment/feed-events';
import { streams } from '../../domain/shared/streams';
import { Attempt, CommandHandler, RequestContext } from '../command-handler';
import { Clock } from '../ports/clock';
import { ExpectedRevision } from '../ports/event-store';
import { IdGenerator } from '../ports/ids';
import { catalogueDigest, diffCatalogue, epssFreshness, kevFreshness, partsUnder, shrinksLikePartial } from './feed-rules';
import { EpssFile, EpssGenerations, FeedReads, FeedSources, FeedState, KevCatalogue } from './ports';

export interface SyncOutcome {
  feed: FeedName;
  outcome: 'accepted' | 'unchanged' | 'refused';
  /** Why it was refused. */
  reason: string | null;
  /** The version in use after this synchronisation (KEV catalogVersion, EPSS score_date). */
  version: string | null;
  count: number | null;
  /** KEV: issues signalled VGL-SEC-002 by this synchronisation. */
  signalled?: number;
}

interface Log {
  info(message: string, meta?: unknown): void;
  warn(message: string, meta?: unknown): void;
  error(message: string, meta?: unknown): void;
}

/** What one attempt found: an outcome to answer (with what to log when accepted), or a refusal to record. */
type Decided = { outcome: SyncOutcome; accepted?: Record<string, number>; refusal?: undefined } | { refusal: FeedRefusal; outcome?: undefined; accepted?: undefined };

/** A feed stream is folded to nothing: it is loaded only for its revision, after a lost race. */
const REVISION_ONLY = { initialState: (): null => null, evolve: (): null => null };

const HOUR = 3_600_000;

/**
 * Synchronises the KEV catalogue and the EPSS scores from VIGIL_KEV_URL and VIGIL_EPSS_URL
 * (spec 1 §1.4, §8.3). A feed is downloaded (bounded, guarded) and read completely by its
 * FeedSource, compared with the one in use, and only then accepted as events; anything partial,
 * older or malformed is refused with a FeedRefused event and the feed in use stays (S1.8.3-50).
 * Each acceptance is one unit of work (CommandHandler.transact) appending with the feed stream's
 * revision its read model reflects: concurrent synchronisations (two instances, the loop and an
 * administrator) meet on that revision, and the loser's next attempt reads the new state and finds
 * its feed no longer newer.
 */
export class FeedSync {
  private readonly inFlight = new Map<FeedName, Promise<SyncOutcome>>();
  private readonly lastChecked = new Map<FeedName, number>();
  private timer: NodeJS.Timeout | null = null;
  private loopRun: Promise<unknown> | null = null;
  /** Aborts downloads in progress when the server stops. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly commands: CommandHandler,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly sources: FeedSources,
    private readonly reads: FeedReads,
    private readonly generations: EpssGenerations,
    /** VIGIL_FEED_INTERVAL, the loop's default. */
    private readonly options: { intervalMs: number },
    private readonly log: Log = { info: () => undefined, warn: () => undefined, error: () => undefined },
  ) {}

  /** Synchronises the named feeds one after the other (a feed already being synchronised here is awaited, not doubled). */
  async sync(ctx: RequestContext | null, feeds: readonly FeedName[] = FEEDS): Promise<SyncOutcome[]> {
    const outcomes: SyncOutcome[] = [];
    for (const feed of feeds) outcomes.push(await this.syncOne(feed, ctx));
    return outcomes;
  }

  syncOne(feed: FeedName, ctx: RequestContext | null): Promise<SyncOutcome> {
    const running = this.inFlight.get(feed);
    if (running) return running;
    const context = ctx ?? { actor: null, address: null, userAgent: null, correlationId: 'feed-sync', now: this.clock.now() };
    this.lastChecked.set(feed, context.now.getTime());
    const run = (feed === 'kev' ? this.syncKev(context) : this.syncEpss(context)).finally(() => this.inFlight.delete(feed));
    this.inFlight.set(feed, run);
    return run;
  }

  /**
   * The loop (spec 1 §8.3 feeds, VIGIL_FEED_INTERVAL): every min(interval, 1 h) it synchronises the
   * feeds whose last synchronisation, refusal or check here is at least an interval old, so a
   * restart does not download again and several instances share the work through the feed state.
   */
  start(intervalMs = this.options.intervalMs): void {
    if (this.timer || intervalMs <= 0) return;
    const tick = () => {
      if (this.loopRun) return;
      this.loopRun = this.runDue(intervalMs)
        .catch((error) => this.log.error('Feed synchronisation failed; the next run tries again', { error: (error as Error)?.stack ?? String(error) }))
        .finally(() => { this.loopRun = null; });
    };
    this.timer = setInterval(tick, Math.min(intervalMs, HOUR));
    this.timer.unref?.();
    tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopping.abort();
    await this.loopRun;
  }

  /** One turn of the loop: the feeds due. */
  async runDue(intervalMs = this.options.intervalMs): Promise<SyncOutcome[]> {
    const states = await this.reads.states();
    const now = this.clock.now().getTime();
    const due = FEEDS.filter((feed) => {
      const s = states.get(feed);
      const last = Math.max(time(s?.synchronisedAt), time(s?.lastRefusedAt), this.lastChecked.get(feed) ?? 0);
      return now - last >= intervalMs;
    });
    return this.sync(null, due);
  }

  private async syncKev(ctx: RequestContext): Promise<SyncOutcome> {
    let catalogue: KevCatalogue;
    try {
      catalogue = await this.sources.kev.fetch(this.stopping.signal);
    } catch (error) {
      return this.refuse('kev', error, ctx);
    }
    const { value } = await this.commands.transact(ctx, (attempt) => this.decideKev(attempt, catalogue, ctx.now.toISOString()));
    if (value.refusal) return this.refuse('kev', value.refusal, ctx);
    if (value.accepted) this.log.info(`KEV catalogue ${catalogue.version} accepted`, value.accepted);
    return value.outcome;
  }

  /**
   * One attempt at the KEV catalogue: compared with the one in use, the diff cut into parts, the
   * summary, and the VGL-SEC-002 signals, recorded for one commit with the revisions read.
   */
  private async decideKev(attempt: Attempt, catalogue: KevCatalogue, at: string): Promise<Decided> {
    const current = await this.stateFor('kev', attempt);
    const inUse = current?.version ? { version: current.version, dateReleased: current.releasedAt ?? '' } : null;
    const fresh = kevFreshness(inUse, catalogue);
    if (fresh.freshness === 'older') return { refusal: new FeedRefusal('older', fresh.why) };
    if (fresh.freshness === 'same') return { outcome: { feed: 'kev', outcome: 'unchanged', reason: null, version: catalogue.version, count: catalogue.count } };
    if (shrinksLikePartial(current?.count ?? null, catalogue.count)) {
      return { refusal: new FeedRefusal('partial', `The KEV catalogue offered lists ${catalogue.count} vulnerabilities, fewer than half the ${current!.count} in use: taken for a partial catalogue.`) };
    }
    const diff = diffCatalogue(await this.reads.catalogueInUse(), catalogue.entries);
    const listedParts = partsUnder(diff.listed).map((part, i): KevEntriesListed => ({ type: 'KevEntriesListed', data: { version: catalogue.version, part: i + 1, entries: part } }));
    const delistedParts = partsUnder(diff.delisted).map((part, i): KevEntriesDelisted => ({ type: 'KevEntriesDelisted', data: { version: catalogue.version, part: i + 1, cves: part } }));
    const summary: KevCatalogueSynchronised = {
      type: 'KevCatalogueSynchronised',
      data: {
        version: catalogue.version, dateReleased: catalogue.dateReleased, count: catalogue.count, digest: catalogueDigest(catalogue.entries.map((e) => e.cve)),
        sha256: catalogue.sha256, listed: diff.listed.length - diff.changed, changed: diff.changed, delisted: diff.delisted.length,
        parts: listedParts.length + delistedParts.length, at,
      },
    };
    const signals = await this.signals(diff.newly, catalogue, at);
    attempt.record(streams.feed('kev'), [...listedParts, ...delistedParts, summary], expectedOf(current));
    // Each signal on its own stream with no_stream: a second signal for an issue cannot be appended.
    for (const signal of signals) attempt.record(streams.kevListed(signal.data.key), [signal], 'no_stream');
    return {
      outcome: { feed: 'kev', outcome: 'accepted', reason: null, version: catalogue.version, count: catalogue.count, signalled: signals.length },
      accepted: { count: catalogue.count, newly: diff.newly.length, delisted: diff.delisted.length, signalled: signals.length },
    };
  }

  private async syncEpss(ctx: RequestContext): Promise<SyncOutcome> {
    let file: EpssFile;
    try {
      file = await this.sources.epss.fetch(this.stopping.signal);
    } catch (error) {
      return this.refuse('epss', error, ctx);
    }
    // The scores go into a generation of epss_scores before the event that names it is appended
    // (ADR 0007): written once, by the first attempt that finds the file newer; an attempt after a
    // lost race names the same generation.
    const written: { generation: number | null } = { generation: null };
    let value: Decided;
    try {
      ({ value } = await this.commands.transact(ctx, async (attempt): Promise<Decided> => {
        const current = await this.stateFor('epss', attempt);
        const inUse = current?.version ? { scoreDate: current.releasedAt ?? current.version, modelVersion: current.modelVersion ?? '' } : null;
        const fresh = epssFreshness(inUse, file);
        if (fresh.freshness === 'older') return { refusal: new FeedRefusal('older', fresh.why) };
        if (fresh.freshness === 'same') return { outcome: { feed: 'epss', outcome: 'unchanged', reason: null, version: file.scoreDate, count: file.count } };
        written.generation ??= await this.writeGeneration(file);
        const event: EpssScoresSynchronised = {
          type: 'EpssScoresSynchronised',
          data: { scoreDate: file.scoreDate, modelVersion: file.modelVersion, count: file.count, sha256: file.sha256, generation: written.generation, at: ctx.now.toISOString() },
        };
        attempt.record(streams.feed('epss'), [event], expectedOf(current));
        return { outcome: { feed: 'epss', outcome: 'accepted', reason: null, version: file.scoreDate, count: file.count }, accepted: { count: file.count } };
      }));
    } catch (error) {
      // Its event was never appended: the generation goes now (the next accepted file would remove it too).
      if (written.generation !== null) await this.generations.delete(written.generation);
      throw error;
    }
    if (value.accepted) {
      await this.generations.deleteBefore(written.generation!);
      this.log.info(`EPSS scores of ${file.scoreDate} accepted`, { count: file.count, modelVersion: file.modelVersion });
    } else if (written.generation !== null) {
      // A later attempt found the file in use already (or older): its generation is nobody's.
      await this.generations.delete(written.generation);
    }
    if (value.refusal) return this.refuse('epss', value.refusal, ctx);
    return value.outcome;
  }

  private async writeGeneration(file: EpssFile): Promise<number> {
    const generation = await this.ids.next('epss_generation');
    await this.generations.write(generation, file);
    return generation;
  }

  /**
   * The feed's state as the read model has it. An attempt after a lost race first waits (bounded)
   * until the read model has every event of the feed's stream, so that it compares the feed with
   * what the winner wrote instead of losing again on the same state.
   */
  private async stateFor(feed: FeedName, attempt: Attempt): Promise<FeedState | undefined> {
    if (attempt.number > 1) {
      const { revision } = await attempt.load(streams.feed(feed), REVISION_ONLY);
      if (revision !== null) return this.caughtUp(feed, revision);
    }
    return (await this.reads.states()).get(feed);
  }

  /** The feed's state once the read model reflects `revision` of its stream, or as it stands after `timeoutMs`. */
  private async caughtUp(feed: FeedName, revision: number, timeoutMs = 10_000): Promise<FeedState | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
      const state = (await this.reads.states()).get(feed);
      if ((state && state.streamRevision >= revision) || Date.now() >= deadline) return state;
      await new Promise((r) => setTimeout(r, delay));
    }
  }

  /**
   * VGL-SEC-002 (S2.6-30): the open issues whose CVE this synchronisation newly lists and that were
   * never signalled.
   */
  private async signals(newly: readonly string[], catalogue: KevCatalogue, at: string): Promise<IssueKevListed[]> {
    if (newly.length === 0) return [];
    const byCve = new Map(catalogue.entries.map((e) => [e.cve, e]));
    return (await this.reads.openIssuesNeverSignalled(newly)).map((issue): IssueKevListed => ({
      type: 'IssueKevListed',
      data: {
        id: issue.id, key: issue.key, cve: issue.cve, targetKind: issue.targetKind, targetId: issue.targetId, severity: issue.severity,
        packageName: issue.packageName, packageVersion: issue.packageVersion, catalogueVersion: catalogue.version, dateAdded: byCve.get(issue.cve)!.dateAdded,
        at, siem: KEV_LISTED_SIEM,
      },
    }));
  }

  /** Records why a feed was not taken; the one in use stays. Errors other than refusals are not the feed's fault: they propagate. */
  private async refuse(feed: FeedName, error: unknown, ctx: RequestContext): Promise<SyncOutcome> {
    if (!(error instanceof FeedRefusal)) throw error;
    if (this.stopping.signal.aborted) return { feed, outcome: 'refused', reason: 'The server is stopping; the feed in use is kept.', version: null, count: null };
    this.log.warn(`${feed.toUpperCase()} feed refused; the one in use is kept`, { reason: error.message });
    const refused: FeedRefused = { type: 'FeedRefused', data: { feed, kind: error.kind, reason: error.message.slice(0, 1000), at: ctx.now.toISOString() } };
    // A record of its own: it changes nothing in use, so it needs no revision.
    await this.commands.appendAll([{ stream: streams.feed(feed), expectedRevision: 'any', events: [refused] }], ctx);
    const current = (await this.reads.states()).get(feed);
    return { feed, outcome: 'refused', reason: error.message, version: current?.version ?? null, count: current?.count ?? null };
  }
}

function expectedOf(state: FeedState | undefined): ExpectedRevision {
  return state ? state.streamRevision : 'no_stream';
}

function time(iso: string | null | undefined): number {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(t) ? 0 : t;
}
