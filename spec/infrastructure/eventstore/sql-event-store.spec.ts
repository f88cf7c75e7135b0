import * as chai from 'chai';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { WrongExpectedRevision } from '../../../application/ports/event-store';
import { RecordedEvent, START } from '../../../domain/shared/event-envelope';
import { SqlEventStore } from '../../../infrastructure/eventstore/sql-event-store';
import { ObservedEventStore } from '../../../infrastructure/eventstore/observed-event-store';
import { createTestDatabase, describeEachEngine, engineAvailable } from '../../support/databases';
import { event, eventStoreContract } from './contract';
import chaiAsPromised from '../../support/chai-as-promised';

chai.use(chaiAsPromised);

describeEachEngine('SQL event store contract', ({ get }) => {
  eventStoreContract(() => new SqlEventStore(get().db));

  it('writes a multi-stream commit of several INSERT statements (2 MB of event text) in order, and undoes all of it when the commit fails after them', async () => {
    const store = new SqlEventStore(get().db);
    const text = 'x'.repeat(5000);
    const commit = () => Array.from({ length: 40 }, () => ({
      stream: `big-${randomUUID()}`, expectedRevision: 'no_stream' as const, events: Array.from({ length: 10 }, (_, i) => event('Big', { i, text })),
    }));
    const written = commit();
    await store.appendMany(written);
    for (const a of written) expect((await store.readStream<{ i: number }>(a.stream)).map((e) => e.data.i)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // Every INSERT statement of the commit has run when it fails, just before COMMIT.
    const refused = commit();
    const failing = new SqlEventStore(get().db, { beforeCommit: async () => { throw new Error('failed before commit'); } });
    expect((await expect(failing.appendMany(refused)).to.be.rejectedWith(Error)).message).to.equal('failed before commit');
    for (const a of refused) expect(await store.readStream(a.stream)).to.have.length(0);
  });

  it('reads many streams in one statement, also through the measured store of the composition (ObservedEventStore passes readStreams through)', async () => {
    const store = new SqlEventStore(get().db);
    const names = [`many-${randomUUID()}`, `many-${randomUUID()}`, `many-${randomUUID()}`];
    await store.append(names[0], [event('A', { n: 0 }), event('A', { n: 1 })], 'no_stream');
    await store.append(names[1], [event('B', { n: 2 })], 'no_stream');
    const observed = new ObservedEventStore(store, { appended: () => undefined });
    expect(observed.readStreams, 'an export as of an instant would read one stream at a time without it').to.be.a('function');
    const read = await observed.readStreams!(names);
    expect(names.map((n) => read.get(n)!.map((e) => (e.data as { n: number }).n))).to.deep.equal([[0, 1], [2], []]);
  });

  it('keeps data exactly through the separated columns: multi-byte text, the separator and other control characters inside strings, each metadata its own', async () => {
    const store = new SqlEventStore(get().db);
    const s = `text-${randomUUID()}`;
    const tricky = ['é ü 中文 🙂', 'a\u001eb', 'tab\tnew\nline\u0000nul', '\\x1e', '"quoted" \\ back'];
    const events = tricky.map((t, i) => ({ ...event('Text', { t, i }), metadata: { actor: i, at: '2026-01-01T00:00:00.000Z', note: t } }));
    await store.append(s, events, 'no_stream');
    const read = await store.readStream<{ t: string; i: number }>(s);
    expect(read.map((e) => e.data.t)).to.deep.equal(tricky);
    expect(read.map((e) => e.metadata.note)).to.deep.equal(tricky);
  });

  it('refuses a stream or event type name holding a control character (the columns travel separated by one), writing nothing', async () => {
    const store = new SqlEventStore(get().db);
    const s = `bad-${randomUUID()}\u001e`;
    expect((await expect(store.append(s, [event('A')], 'no_stream')).to.be.rejectedWith(Error)).message).to.match(/no control characters/);
    expect((await expect(store.append(`ok-${randomUUID()}`, [event('A\u001eB')], 'no_stream')).to.be.rejectedWith(Error)).message).to.match(/no control characters/);
    expect(await store.readStream(s)).to.have.length(0);
  });
});

for (const engine of ['postgres', 'mysql'] as const) {
  describe(`SQL event store late commits [${engine}] @db`, function () {
    it('never lets a subscriber skip an event that commits late with a lower position (two appenders, the first held open)', async function () {
      if (!(await engineAvailable(engine))) this.skip();
      const test = await createTestDatabase(engine);
      try {
        let release!: () => void;
        let held!: () => void;
        const heldOpen = new Promise<void>((r) => (held = r));
        const gate = new Promise<void>((r) => (release = r));
        // Appender 1 pauses inside its transaction, after taking its position, before commit.
        const slow = new SqlEventStore(test.db, { beforeCommit: async () => { held(); await gate; } });
        const fast = new SqlEventStore(test.reopen());
        const reader = new SqlEventStore(test.reopen());

        const first = slow.append('late-1', [event('First')], 'no_stream');
        await heldOpen;
        const second = fast.append('late-2', [event('Second')], 'no_stream');
        // While appender 1 is open, a subscriber must not be handed "Second" alone.
        const seen: RecordedEvent[] = [];
        let cursor = START;
        for (let i = 0; i < 5; i++) {
          const batch = await reader.readAll(cursor, 100);
          seen.push(...batch);
          if (batch.length) cursor = batch[batch.length - 1].cursor;
          await new Promise((r) => setTimeout(r, 20));
        }
        expect(seen.map((e) => e.type)).to.deep.equal([]);
        release();
        await Promise.all([first, second]);
        for (;;) {
          const batch = await reader.readAll(cursor, 100);
          if (batch.length === 0) break;
          seen.push(...batch);
          cursor = batch[batch.length - 1].cursor;
        }
        expect(seen.map((e) => e.type)).to.have.members(['First', 'Second']);
        expect(seen).to.have.length(2);
      } finally {
        await test.drop();
      }
    });

    it('keeps one stream in revision order for subscribers when appends race', async function () {
      if (!(await engineAvailable(engine))) this.skip();
      const test = await createTestDatabase(engine);
      try {
        const stores = [new SqlEventStore(test.db), new SqlEventStore(test.reopen()), new SqlEventStore(test.reopen())];
        const stream = `race-${randomUUID()}`;
        await Promise.all(stores.map(async (s, w) => {
          for (let i = 0; i < 30; i++) {
            for (;;) {
              try { await s.append(stream, [event('N', { w, i })], 'any'); break; } catch { /* lost the race: try again */ }
            }
          }
        }));
        const all: RecordedEvent[] = [];
        let cursor = START;
        for (;;) {
          const batch = await stores[0].readAll(cursor, 50);
          if (!batch.length) break;
          all.push(...batch);
          cursor = batch[batch.length - 1].cursor;
        }
        expect(all.map((e) => e.revision)).to.deep.equal(Array.from({ length: 90 }, (_, i) => i));
      } finally {
        await test.drop();
      }
    });
  });
}
