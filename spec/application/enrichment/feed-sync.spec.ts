import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { CommandHandler } from '../../../application/command-handler';
import { FeedSync } from '../../../application/enrichment/feed-sync';
import { EpssFile, EpssGenerations, FeedReads, FeedSources, FeedState, KevCatalogue } from '../../../application/enrichment/ports';
import { ManualClock } from '../../../application/ports/clock';
import { AppendResult, EventStore, ExpectedRevision, StreamAppend, WrongExpectedRevision } from '../../../application/ports/event-store';
import { IdGenerator } from '../../../application/ports/ids';
import { jitteredRetry } from '../../../application/shared/retry-policy';
import { FeedName, KevEntry } from '../../../domain/enrichment/feed-events';
import { FeedRefusal } from '../../../domain/enrichment/feed-refusal';
import { NewEvent, RecordedEvent } from '../../../domain/shared/event-envelope';
import { streams } from '../../../domain/shared/streams';

/** Just enough of an event store to lose a race on: revisions checked per stream, streams kept in memory. */
class MemoryStore implements EventStore {
  readonly streams = new Map<string, RecordedEvent[]>();
  private position = 0;

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.appendMany([{ stream, events, expectedRevision: expected }]);
  }

  async appendMany(appends: StreamAppend[]): Promise<AppendResult> {
    for (const a of appends) {
      const actual = this.revision(a.stream);
      const fits = a.expectedRevision === 'any' || (a.expectedRevision === 'no_stream' ? actual === null : actual === a.expectedRevision);
      if (!fits) throw new WrongExpectedRevision(a.stream, a.expectedRevision, actual);
    }
    let last = { revision: -1, cursor: { commit: '0', position: 0 } };
    for (const a of appends) {
      const list = this.streams.get(a.stream) ?? [];
      for (const e of a.events) {
        last = { revision: list.length, cursor: { commit: '0', position: ++this.position } };
        list.push({ id: e.id, stream: a.stream, revision: list.length, type: e.type, data: e.data, metadata: e.metadata, cursor: last.cursor });
      }
      this.streams.set(a.stream, list);
    }
    return { nextRevision: last.revision, cursor: last.cursor };
  }

  async readStream<T>(stream: string): Promise<RecordedEvent<T>[]> {
    return (this.streams.get(stream) ?? []) as RecordedEvent<T>[];
  }

  async readAll(): Promise<RecordedEvent[]> { return []; }
  async head() { return { commit: '0', position: this.position }; }
  async close() { /* nothing held */ }

  /** Another instance's commit, straight into the log. */
  winner(stream: string, type: string, data: unknown): void {
    const list = this.streams.get(stream) ?? [];
    list.push({ id: randomUUID(), stream, revision: list.length, type, data, metadata: { actor: null, at: '2026-01-01T00:00:00.000Z' }, cursor: { commit: '0', position: ++this.position } });
    this.streams.set(stream, list);
  }

  private revision(stream: string): number | null {
    const list = this.streams.get(stream);
    return list?.length ? list.length - 1 : null;
  }
}

/** The enrichment read model as the spec sets it; `lagging` answers the old state for a few reads (another instance's events not yet projected here). */
class ScriptedReads implements FeedReads {
  state = new Map<FeedName, FeedState>();
  next: Map<FeedName, FeedState> | null = null;
  lagging = 0;
  reads = 0;

  async states() {
    this.reads++;
    if (this.next && this.lagging-- <= 0) this.state = this.next;
    return new Map(this.state);
  }

  async catalogueInUse() { return new Map<string, KevEntry>(); }
  async openIssuesNeverSignalled() { return []; }
}

class Generations implements EpssGenerations {
  readonly written: number[] = [];
  readonly deleted: number[] = [];
  readonly keptFrom: number[] = [];
  async write(generation: number) { this.written.push(generation); }
  async delete(generation: number) { this.deleted.push(generation); }
  async deleteBefore(keep: number) { this.keptFrom.push(keep); }
}

class Ids implements IdGenerator {
  private n = 0;
  async next() { return ++this.n; }
  async nextBlock(_kind: string, count: number) { return Array.from({ length: count }, () => ++this.n); }
  uuid() { return randomUUID(); }
}

const FILE: EpssFile = {
  modelVersion: 'v2025.03.14', scoreDate: '2025-08-25T00:00:00Z', count: 2, cves: ['CVE-2024-0001', 'CVE-2024-0002'], scores: [0.1, 0.2], percentiles: [0.5, 0.6],
  sha256: 'f'.repeat(64), inflatedBytes: 100, compressed: false,
};
const CATALOGUE: KevCatalogue = {
  version: '2025.08.25', dateReleased: '2025-08-25T12:00:00.000Z', count: 1, sha256: 'e'.repeat(64),
  entries: [{ cve: 'CVE-2024-0001', dateAdded: '2025-08-25', vendorProject: 'Acme', product: 'Widget', name: 'Widget flaw', dueDate: '2025-09-15', ransomware: null }],
};

const state = (feed: FeedName, over: Partial<FeedState>): FeedState => ({
  feed, version: null, releasedAt: null, modelVersion: null, count: null, synchronisedAt: null, lastRefusedAt: null, streamRevision: 0, ...over,
});

function setUp() {
  const store = new MemoryStore();
  const reads = new ScriptedReads();
  const generations = new Generations();
  const commands = new CommandHandler(store, new Ids(), { waitFor: async () => undefined }, jitteredRetry(5, 1, 2));
  const sources: FeedSources = { kev: { fetch: async () => CATALOGUE }, epss: { fetch: async () => FILE } };
  const sync = new FeedSync(commands, new Ids(), new ManualClock(), sources, reads, generations, { intervalMs: 0 });
  return { store, reads, generations, sources, sync };
}

describe('Feed synchronisation: one unit of work per acceptance (issue #18)', () => {
  it('after losing the EPSS stream to a synchronisation of the same file, waits for its state and answers unchanged; its own generation goes', async () => {
    const { store, reads, generations, sync } = setUp();
    // Another instance accepted the file; this instance's read model does not have it yet.
    store.winner(streams.feed('epss'), 'EpssScoresSynchronised', { scoreDate: FILE.scoreDate, modelVersion: FILE.modelVersion, count: 2, sha256: FILE.sha256, generation: 99, at: '' });
    reads.next = new Map([['epss', state('epss', { version: FILE.scoreDate, releasedAt: FILE.scoreDate, modelVersion: FILE.modelVersion, count: 2, streamRevision: 0 })]]);
    reads.lagging = 2;
    const [outcome] = await sync.sync(null, ['epss']);
    expect(outcome).to.include({ feed: 'epss', outcome: 'unchanged', version: FILE.scoreDate });
    expect(generations.written).to.have.length(1);
    expect(generations.deleted).to.deep.equal(generations.written);
    expect(generations.keptFrom).to.deep.equal([]);
    expect(store.streams.get(streams.feed('epss'))).to.have.length(1);
  });

  it('after losing the EPSS stream to a refusal, tries again on the new revision with the generation already written', async () => {
    const { store, reads, generations, sync } = setUp();
    store.winner(streams.feed('epss'), 'FeedRefused', { feed: 'epss', kind: 'download', reason: 'Unreachable.', at: '' });
    reads.next = new Map([['epss', state('epss', { lastRefusedAt: '2026-01-01T00:00:00.000Z', streamRevision: 0 })]]);
    reads.lagging = 1;
    const [outcome] = await sync.sync(null, ['epss']);
    expect(outcome).to.include({ feed: 'epss', outcome: 'accepted', count: 2 });
    expect(generations.written).to.have.length(1);
    expect(generations.deleted).to.deep.equal([]);
    expect(generations.keptFrom).to.deep.equal(generations.written);
    const events = store.streams.get(streams.feed('epss'))!;
    expect(events.map((e) => e.type)).to.deep.equal(['FeedRefused', 'EpssScoresSynchronised']);
    expect((events[1].data as { generation: number }).generation).to.equal(generations.written[0]);
  });

  it('after losing the KEV stream to the same catalogue, answers unchanged and appends nothing more', async () => {
    const { store, reads, sync } = setUp();
    store.winner(streams.feed('kev'), 'KevCatalogueSynchronised', { version: CATALOGUE.version });
    reads.next = new Map([['kev', state('kev', { version: CATALOGUE.version, releasedAt: CATALOGUE.dateReleased, count: 1, streamRevision: 0 })]]);
    reads.lagging = 3;
    const [outcome] = await sync.sync(null, ['kev']);
    expect(outcome).to.include({ feed: 'kev', outcome: 'unchanged', version: CATALOGUE.version });
    expect(store.streams.get(streams.feed('kev'))).to.have.length(1);
  });

  it('records a refusal of its source as FeedRefused, matched by class; any other error propagates and writes nothing', async () => {
    const { store, reads, sources, sync } = setUp();
    sources.kev.fetch = async () => { throw new FeedRefusal('malformed', 'The KEV catalogue is not UTF-8 text.'); };
    reads.next = new Map([['kev', state('kev', { lastRefusedAt: '2026-01-01T00:00:00.000Z' })]]);
    expect((await sync.sync(null, ['kev']))[0]).to.include({ outcome: 'refused', reason: 'The KEV catalogue is not UTF-8 text.' });
    expect(store.streams.get(streams.feed('kev'))!.map((e) => e.type)).to.deep.equal(['FeedRefused']);
    const impostor = Object.assign(new Error('The KEV catalogue is not UTF-8 text.'), { name: 'FeedRefusal', kind: 'malformed' });
    sources.kev.fetch = async () => { throw impostor; };
    expect(await sync.sync(null, ['kev']).catch((e: unknown) => e)).to.equal(impostor);
    expect(store.streams.get(streams.feed('kev'))).to.have.length(1);
  });
});
