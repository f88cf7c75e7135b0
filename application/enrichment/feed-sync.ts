import type { DomainEvent } from '../../domain/shared/decider';
import { Database } from '../../infrastructure/db/database';
import type { Lookup } from '../../infrastructure/feeds/destination-guard';
import { EpssFile, EpssLimits, readEpssScores } from '../../infrastructure/feeds/epss-scores';
import { deleteEpssGeneration, deleteEpssGenerationsBefore, writeEpssGeneration } from '../../infrastructure/feeds/epss-table';
import { FeedRefusal } from '../../infrastructure/feeds/feed-refusal';
import type { FeedSettings } from '../../infrastructure/feeds/feed-settings';
import { download, DownloadOptions, downloadAll } from '../../infrastructure/feeds/http-download';
import { KevCatalogue, parseKevCatalogue } from '../../infrastructure/feeds/kev-catalogue';
import { CommandHandler, RequestContext } from '../command-handler';
import { Clock } from '../ports/clock';
import { ExpectedRevision, WrongExpectedRevision } from '../ports/event-store';
import { IdGenerator } from '../ports/ids';
import { EpssScoresSynchronised, FeedName, FEEDS, IssueKevListed, KEV_LISTED_SIEM, KevCatalogueSynchronised, KevEntriesDelisted, KevEntriesListed, KevEntry } from '../../domain/enrichment/feed-events';
import { catalogueDigest, diffCatalogue, epssFreshness, kevFreshness, partsUnder, shrinksLikePartial } from './feed-rules';
import { streams } from '../../domain/shared/streams';

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

export interface FeedView {
  feed: FeedName;
  /** Scheme, host and port of the configured URL (never its path or query, which may hold a token). */
  source: string;
  allowPrivate: boolean;
  synchronised: boolean;
  version: string | null;
  releasedAt: string | null;
  modelVersion: string | null;
  count: number | null;
  sha256: string | null;
  synchronisedAt: string | null;
  lastRefusal: { reason: string; at: string } | null;
}

interface FeedStateRow {
  feed: FeedName; version: string | null; released_at: string | null; model_version: string | null; count: number | null; digest: string | null;
  sha256: string | null; generation: number | null; synchronised_at: string | null; stream_revision: number; last_refusal: string | null; last_refused_at: string | null;
}

interface Log {
  info(message: string, meta?: unknown): void;
  warn(message: string, meta?: unknown): void;
  error(message: string, meta?: unknown): void;
}

const ATTEMPTS = 5;
const IN_CHUNK = 1000;
const HOUR = 3_600_000;

/**
 * Synchronises the KEV catalogue and the EPSS scores from VIGIL_KEV_URL and VIGIL_EPSS_URL
 * (spec 1 §1.4, §8.3). A feed is downloaded (bounded, guarded), read completely, compared with the
 * one in use, and only then accepted as events; anything partial, older or malformed is refused
 * with a FeedRefused event and the feed in use stays (S1.8.3-50). Concurrent synchronisations (two
 * instances, the loop and an administrator) meet on the feed stream's revision: the loser reads the
 * new state and finds its feed no longer newer.
 */
export class FeedSync {
  private readonly inFlight = new Map<FeedName, Promise<SyncOutcome>>();
  private readonly lastChecked = new Map<FeedName, number>();
  private timer: NodeJS.Timeout | null = null;
  private loopRun: Promise<unknown> | null = null;
  /** Aborts downloads in progress when the server stops. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly db: Database,
    private readonly commands: CommandHandler,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly settings: FeedSettings,
    private readonly log: Log = { info: () => undefined, warn: () => undefined, error: () => undefined },
    /** Tests: name resolution for the destination guard, bounds of the EPSS reader. */
    private readonly options: { lookup?: Lookup; epssLimits?: Partial<EpssLimits> } = {},
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

  /** GET /feeds: each feed's state, never synchronised included. */
  async state(): Promise<FeedView[]> {
    const rows = await this.states();
    return FEEDS.map((feed) => {
      const r = rows.get(feed);
      const url = feed === 'kev' ? this.settings.kevUrl : this.settings.epssUrl;
      return {
        feed, source: originOf(url), allowPrivate: feed === 'kev' ? this.settings.kevAllowPrivate : this.settings.epssAllowPrivate,
        synchronised: Boolean(r?.version), version: r?.version ?? null, releasedAt: r?.released_at ?? null, modelVersion: r?.model_version ?? null,
        count: r?.count === null || r?.count === undefined ? null : Number(r.count), sha256: r?.sha256 ?? null, synchronisedAt: r?.synchronised_at ?? null,
        lastRefusal: r?.last_refusal ? { reason: r.last_refusal, at: r.last_refused_at ?? '' } : null,
      };
    });
  }

  /**
   * The loop (spec 1 §8.3 feeds, VIGIL_FEED_INTERVAL): every min(interval, 1 h) it synchronises the
   * feeds whose last synchronisation, refusal or check here is at least an interval old, so a
   * restart does not download again and several instances share the work through the feed state.
   */
  start(intervalMs = this.settings.intervalMs): void {
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
  async runDue(intervalMs = this.settings.intervalMs): Promise<SyncOutcome[]> {
    const rows = await this.states();
    const now = this.clock.now().getTime();
    const due = FEEDS.filter((feed) => {
      const r = rows.get(feed);
      const last = Math.max(time(r?.synchronised_at), time(r?.last_refused_at), this.lastChecked.get(feed) ?? 0);
      return now - last >= intervalMs;
    });
    return this.sync(null, due);
  }

  private async syncKev(ctx: RequestContext): Promise<SyncOutcome> {
    let catalogue: KevCatalogue;
    try {
      catalogue = parseKevCatalogue(await downloadAll(this.settings.kevUrl, this.downloadOptions('kev')));
    } catch (error) {
      return this.refuse('kev', error, ctx);
    }
    for (let attempt = 1; ; attempt++) {
      const current = (await this.states()).get('kev');
      const inUse = current?.version ? { version: current.version, dateReleased: current.released_at ?? '' } : null;
      const fresh = kevFreshness(inUse, catalogue);
      if (fresh.freshness === 'older') return this.refuse('kev', new FeedRefusal('older', fresh.why), ctx);
      if (fresh.freshness === 'same') return { feed: 'kev', outcome: 'unchanged', reason: null, version: catalogue.version, count: catalogue.count };
      if (shrinksLikePartial(current?.count ?? null, catalogue.count)) {
        return this.refuse('kev', new FeedRefusal('partial', `The KEV catalogue offered lists ${catalogue.count} vulnerabilities, fewer than half the ${current!.count} in use: taken for a partial catalogue.`), ctx);
      }
      const entries = await this.catalogueInUse();
      const diff = diffCatalogue(entries, catalogue.entries);
      const at = ctx.now.toISOString();
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
      try {
        await this.commands.appendAll([
          { stream: streams.feed('kev'), events: [...listedParts, ...delistedParts, summary], expectedRevision: expectedOf(current) },
          ...signals,
        ], ctx);
      } catch (error) {
        if (error instanceof WrongExpectedRevision && attempt < ATTEMPTS) {
          await this.caughtUp('kev', error);
          continue;
        }
        throw error;
      }
      this.log.info(`KEV catalogue ${catalogue.version} accepted`, { count: catalogue.count, newly: diff.newly.length, delisted: diff.delisted.length, signalled: signals.length });
      return { feed: 'kev', outcome: 'accepted', reason: null, version: catalogue.version, count: catalogue.count, signalled: signals.length };
    }
  }

  private async syncEpss(ctx: RequestContext): Promise<SyncOutcome> {
    let file: EpssFile;
    try {
      file = await readEpssScores(download(this.settings.epssUrl, this.downloadOptions('epss')), this.options.epssLimits);
    } catch (error) {
      return this.refuse('epss', error, ctx);
    }
    for (let attempt = 1; ; attempt++) {
      const current = (await this.states()).get('epss');
      const inUse = current?.version ? { scoreDate: current.released_at ?? current.version, modelVersion: current.model_version ?? '' } : null;
      const fresh = epssFreshness(inUse, file);
      if (fresh.freshness === 'older') return this.refuse('epss', new FeedRefusal('older', fresh.why), ctx);
      if (fresh.freshness === 'same') return { feed: 'epss', outcome: 'unchanged', reason: null, version: file.scoreDate, count: file.count };
      const generation = await this.ids.next('epss_generation');
      await writeEpssGeneration(this.db, generation, file);
      const event: EpssScoresSynchronised = {
        type: 'EpssScoresSynchronised',
        data: { scoreDate: file.scoreDate, modelVersion: file.modelVersion, count: file.count, sha256: file.sha256, generation, at: ctx.now.toISOString() },
      };
      try {
        await this.commands.appendAll([{ stream: streams.feed('epss'), events: [event], expectedRevision: expectedOf(current) }], ctx);
      } catch (error) {
        await deleteEpssGeneration(this.db, generation);
        if (error instanceof WrongExpectedRevision && attempt < ATTEMPTS) {
          await this.caughtUp('epss', error);
          continue;
        }
        throw error;
      }
      await deleteEpssGenerationsBefore(this.db, generation);
      this.log.info(`EPSS scores of ${file.scoreDate} accepted`, { count: file.count, modelVersion: file.modelVersion });
      return { feed: 'epss', outcome: 'accepted', reason: null, version: file.scoreDate, count: file.count };
    }
  }

  /**
   * VGL-SEC-002 (S2.6-30): the open issues whose CVE this synchronisation newly lists and that were
   * never signalled. Each goes on its own stream with no_stream: a second signal cannot be appended.
   */
  private async signals(newly: readonly string[], catalogue: KevCatalogue, at: string): Promise<Array<{ stream: string; events: DomainEvent[]; expectedRevision: ExpectedRevision }>> {
    const byCve = new Map(catalogue.entries.map((e) => [e.cve, e]));
    const out: Array<{ stream: string; events: DomainEvent[]; expectedRevision: ExpectedRevision }> = [];
    const k = this.db.knex;
    for (let i = 0; i < newly.length; i += IN_CHUNK) {
      const rows: Array<{ id: number; issue_key: string; identifier: string; target_kind: string; target_id: number; severity: string; package_name: string | null; package_version: string | null }> = await k('issues')
        .select('id', 'issue_key', 'identifier', 'target_kind', 'target_id', 'severity', 'package_name', 'package_version')
        .where('status', 'open').whereIn('identifier', newly.slice(i, i + IN_CHUNK))
        .whereNotExists(k('kev_listed').select(k.raw('1')).whereRaw('kev_listed.issue_id = issues.id'))
        .orderBy('id');
      for (const r of rows) {
        const entry = byCve.get(r.identifier)!;
        const event: IssueKevListed = {
          type: 'IssueKevListed',
          data: {
            id: Number(r.id), key: r.issue_key, cve: r.identifier, targetKind: r.target_kind, targetId: Number(r.target_id), severity: r.severity,
            packageName: r.package_name, packageVersion: r.package_version, catalogueVersion: catalogue.version, dateAdded: entry.dateAdded, at, siem: KEV_LISTED_SIEM,
          },
        };
        out.push({ stream: streams.kevListed(r.issue_key), events: [event], expectedRevision: 'no_stream' });
      }
    }
    return out;
  }

  /** Records why a feed was not taken; the one in use stays. Errors other than refusals are not the feed's fault: they propagate. */
  private async refuse(feed: FeedName, error: unknown, ctx: RequestContext): Promise<SyncOutcome> {
    if (!(error instanceof FeedRefusal)) throw error;
    if (this.stopping.signal.aborted) return { feed, outcome: 'refused', reason: 'The server is stopping; the feed in use is kept.', version: null, count: null };
    this.log.warn(`${feed.toUpperCase()} feed refused; the one in use is kept`, { reason: error.message });
    await this.commands.appendAll([{
      stream: streams.feed(feed), expectedRevision: 'any',
      events: [{ type: 'FeedRefused', data: { feed, kind: error.kind, reason: error.message.slice(0, 1000), at: ctx.now.toISOString() } }],
    }], ctx);
    const current = (await this.states()).get(feed);
    return { feed, outcome: 'refused', reason: error.message, version: current?.version ?? null, count: current?.count === null || current?.count === undefined ? null : Number(current.count) };
  }

  private downloadOptions(feed: FeedName): DownloadOptions {
    const kev = feed === 'kev';
    return {
      label: kev ? 'The KEV catalogue' : 'The EPSS file',
      allowPrivate: kev ? this.settings.kevAllowPrivate : this.settings.epssAllowPrivate,
      switchName: kev ? 'VIGIL_KEV_ALLOW_PRIVATE' : 'VIGIL_EPSS_ALLOW_PRIVATE',
      timeoutMs: this.settings.timeoutMs,
      maxBytes: kev ? this.settings.kevMaxBytes : this.settings.epssMaxBytes,
      accept: kev ? 'application/json' : 'application/gzip, text/csv, */*',
      lookup: this.options.lookup,
      signal: this.stopping.signal,
    };
  }

  /**
   * After losing the feed stream to another synchronisation (another instance, most likely): waits
   * until the feed state has its events (bounded), so the next attempt compares with what it wrote.
   */
  private async caughtUp(feed: FeedName, conflict: WrongExpectedRevision, timeoutMs = 10_000): Promise<void> {
    if (conflict.stream !== streams.feed(feed)) {
      // A signal stream already written (its register lags): give the projection a moment.
      await new Promise((r) => setTimeout(r, 100));
      return;
    }
    const deadline = Date.now() + timeoutMs;
    for (let delay = 5; Date.now() < deadline; delay = Math.min(delay * 2, 100)) {
      const row = (await this.states()).get(feed);
      if (conflict.actual === null || (row && Number(row.stream_revision) >= conflict.actual)) return;
      await new Promise((r) => setTimeout(r, delay));
    }
  }

  private async states(): Promise<Map<FeedName, FeedStateRow>> {
    const rows: FeedStateRow[] = await this.db.knex('feed_state').select('*');
    return new Map(rows.map((r) => [r.feed, r]));
  }

  private async catalogueInUse(): Promise<Map<string, KevEntry>> {
    const rows: Array<{ cve: string; date_added: string; vendor_project: string; product: string; vulnerability_name: string; due_date: string; known_ransomware: string | null }> =
      await this.db.knex('kev_catalogue').select('cve', 'date_added', 'vendor_project', 'product', 'vulnerability_name', 'due_date', 'known_ransomware');
    return new Map(rows.map((r) => [r.cve, {
      cve: r.cve, dateAdded: r.date_added, vendorProject: r.vendor_project, product: r.product, name: r.vulnerability_name, dueDate: r.due_date, ransomware: r.known_ransomware,
    }]));
  }
}

function expectedOf(row: FeedStateRow | undefined): ExpectedRevision {
  return row ? Number(row.stream_revision) : 'no_stream';
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

function time(iso: string | null | undefined): number {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(t) ? 0 : t;
}
