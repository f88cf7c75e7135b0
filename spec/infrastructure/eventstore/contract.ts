import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { AppendResult, EventStore, WrongExpectedRevision } from '../../../application/ports/event-store';
import { compareCursors, NewEvent, START } from '../../../domain/shared/event-envelope';

export function event(type: string, data: unknown = {}): NewEvent {
  return { id: randomUUID(), type, data, metadata: { actor: 1, at: '2026-01-01T00:00:00.000Z' } };
}

/**
 * The behaviour every EventStore adapter owes (docs/EVENT-SOURCING.md "The event store port").
 * Run by each adapter's spec with a factory giving a fresh, empty store.
 */
export function eventStoreContract(fresh: () => EventStore, options: { atomicMultiStream?: boolean } = {}) {
  const atomic = options.atomicMultiStream ?? true;
  let store: EventStore;
  beforeEach(() => { store = fresh(); });

  it('appends to a new stream with no_stream and reads it back in revision order', async () => {
    const s = `c-${randomUUID()}`;
    const result = await store.append(s, [event('A', { n: 1 }), event('B', { n: 2 })], 'no_stream');
    expect(result.nextRevision).to.equal(1);
    const read = await store.readStream(s);
    expect(read.map((e) => [e.type, e.revision, e.data])).to.deep.equal([['A', 0, { n: 1 }], ['B', 1, { n: 2 }]]);
    expect(read[0].metadata.actor).to.equal(1);
  });

  it('refuses no_stream on an existing stream and a stale revision (optimistic concurrency)', async () => {
    const s = `c-${randomUUID()}`;
    await store.append(s, [event('A')], 'no_stream');
    await expect(store.append(s, [event('A')], 'no_stream')).to.be.rejectedWith(WrongExpectedRevision);
    await store.append(s, [event('B')], 0);
    await expect(store.append(s, [event('C')], 0)).to.be.rejectedWith(WrongExpectedRevision);
    await expect(store.append(s, [event('C')], 5)).to.be.rejectedWith(WrongExpectedRevision);
    await store.append(s, [event('C')], 'any');
    expect((await store.readStream(s)).map((e) => e.type)).to.deep.equal(['A', 'B', 'C']);
  });

  it('lets exactly one of two racing no_stream appends win (set rules across streams)', async () => {
    const s = `reservation-${randomUUID()}`;
    const outcomes = await Promise.allSettled([store.append(s, [event('Reserved', { by: 1 })], 'no_stream'), store.append(s, [event('Reserved', { by: 2 })], 'no_stream')]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(1);
    expect((await store.readStream(s))).to.have.length(1);
  });

  it('keeps each caller\'s outcome and revision when many append at once (group commit): one winner per contested stream', async () => {
    const shared = `contested-${randomUUID()}`;
    const own = Array.from({ length: 12 }, () => `own-${randomUUID()}`);
    await store.append(own[0], [event('A')], 'no_stream');
    const calls = [
      ...Array.from({ length: 6 }, (_, i) => store.append(shared, [event('Reserved', { by: i })], 'no_stream')),
      store.append(own[0], [event('B'), event('C')], 0),
      ...own.slice(1).map((s) => store.append(s, [event('A'), event('B')], 'no_stream')),
    ];
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.slice(0, 6).filter((o) => o.status === 'fulfilled')).to.have.length(1);
    for (const o of outcomes.slice(0, 6)) if (o.status === 'rejected') expect(o.reason).to.be.instanceOf(WrongExpectedRevision);
    expect(outcomes.slice(6).every((o) => o.status === 'fulfilled')).to.equal(true);
    expect((outcomes[6] as PromiseFulfilledResult<AppendResult>).value.nextRevision).to.equal(2);
    for (const o of outcomes.slice(7)) expect((o as PromiseFulfilledResult<AppendResult>).value.nextRevision).to.equal(1);
    expect(await store.readStream(shared)).to.have.length(1);
    expect((await store.readStream(own[0])).map((e) => e.type)).to.deep.equal(['A', 'B', 'C']);
  });

  it('treats a re-append of the same event ids as already done', async () => {
    const s = `c-${randomUUID()}`;
    const e = event('A');
    const first = await store.append(s, [e], 'no_stream');
    const again = await store.append(s, [e], 'no_stream');
    expect(again.nextRevision).to.equal(first.nextRevision);
    expect(await store.readStream(s)).to.have.length(1);
  });

  it('treats a retry as already done per stream: after a revision, with any (the latest append), and across streams', async () => {
    const s = `c-${randomUUID()}`;
    const t = `c-${randomUUID()}`;
    await store.append(s, [event('A')], 'no_stream');
    const batch = [event('B'), event('C')];
    const first = await store.append(s, batch, 0);
    expect((await store.append(s, batch, 0)).nextRevision).to.equal(first.nextRevision);
    const latest = [event('D')];
    await store.append(s, latest, 'any');
    expect((await store.append(s, latest, 'any')).nextRevision).to.equal(3);
    expect((await store.readStream(s)).map((e) => e.type)).to.deep.equal(['A', 'B', 'C', 'D']);
    const both = [{ stream: t, events: [event('T')], expectedRevision: 'no_stream' as const }, { stream: s, events: [event('E')], expectedRevision: 3 }];
    const once = await store.appendMany(both);
    expect((await store.appendMany(both)).nextRevision).to.equal(once.nextRevision);
    expect(await store.readStream(t)).to.have.length(1);
    expect(await store.readStream(s)).to.have.length(5);
  });

  it('recognises a retry by the revisions it names, even after later appends; the same event id on another stream is that stream\'s own', async () => {
    const s = `c-${randomUUID()}`;
    const other = `c-${randomUUID()}`;
    const e = event('A');
    await store.append(s, [e], 'no_stream');
    await store.append(s, [event('B')], 0);
    expect((await store.append(s, [e], 'no_stream')).nextRevision).to.equal(0);
    await expect(store.append(s, [event('A')], 'no_stream')).to.be.rejectedWith(WrongExpectedRevision);
    await store.append(other, [e], 'no_stream');
    expect(await store.readStream(other)).to.have.length(1);
    expect(await store.readStream(s)).to.have.length(2);
  });

  it('appends every one of many concurrent appends with any to one stream, each at its own revision', async () => {
    const s = `c-${randomUUID()}`;
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => store.append(s, [event('Refused', { i })], 'any')));
    expect(results.map((r) => r.nextRevision).sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 12 }, (_, i) => i));
    const read = await store.readStream(s);
    expect(read.map((e) => (e.data as { i: number }).i).sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 12 }, (_, i) => i));
  });

  it(atomic ? 'appends several streams atomically: all or nothing' : 'appends several streams in order, stopping at the first refused one (ADR 0002)', async () => {
    const a = `c-${randomUUID()}`;
    const b = `c-${randomUUID()}`;
    await store.append(b, [event('Existing')], 'no_stream');
    await expect(store.appendMany([
      { stream: a, events: [event('A')], expectedRevision: 'no_stream' },
      { stream: b, events: [event('B')], expectedRevision: 'no_stream' },
    ])).to.be.rejectedWith(WrongExpectedRevision);
    expect(await store.readStream(a)).to.have.length(atomic ? 0 : 1);
    if (!atomic) return;
    await store.appendMany([
      { stream: a, events: [event('A')], expectedRevision: 'no_stream' },
      { stream: b, events: [event('B')], expectedRevision: 0 },
    ]);
    expect(await store.readStream(a)).to.have.length(1);
    expect(await store.readStream(b)).to.have.length(2);
  });

  it('reads all events in cursor order, after a cursor, bounded by limit', async () => {
    const before = await store.head();
    const s = `c-${randomUUID()}`;
    await store.append(s, [event('A'), event('B'), event('C')], 'no_stream');
    const page1 = await store.readAll(before, 2);
    expect(page1.map((e) => e.type)).to.deep.equal(['A', 'B']);
    const page2 = await store.readAll(page1[1].cursor, 10);
    expect(page2.map((e) => e.type)).to.deep.equal(['C']);
    expect(compareCursors(page2[0].cursor, page1[1].cursor)).to.equal(1);
    expect(compareCursors(await store.head(), page2[0].cursor)).to.equal(0);
  });

  it('keeps a batch of 1,200 events (over one INSERT chunk) in order', async () => {
    const s = `c-${randomUUID()}`;
    const events = Array.from({ length: 1200 }, (_, i) => event('N', { i }));
    const result = await store.append(s, events, 'no_stream');
    expect(result.nextRevision).to.equal(1199);
    const read = await store.readStream<{ i: number }>(s);
    expect(read.map((e) => e.data.i)).to.deep.equal(events.map((_, i) => i));
  });

  it('reads START as the beginning', async () => {
    const all = await store.readAll(START, 5);
    expect(all.length).to.be.at.most(5);
  });
}
