import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { CoalescingAppender } from '../../../application/shared/coalescing-appender';
import { IdBlocks } from '../../../application/shared/id-blocks';
import { WrongExpectedRevision } from '../../../application/ports/event-store';
import { SqlIdGenerator } from '../../../infrastructure/db/sql-id-generator';
import { SqlEventStore } from '../../../infrastructure/eventstore/sql-event-store';
import { describeEachEngine } from '../../support/databases';

const meta = { actor: null, at: '2026-01-01T00:00:00.000Z' };
const verdict = (stream: string) => ({ stream, expectedRevision: 'no_stream' as const, events: [{ id: randomUUID(), type: 'GateVerdictGiven', data: { stream }, metadata: meta }] });

/** The gate's hot path helpers (ADR 0008) against each real engine. */
describeEachEngine('Group commit and id blocks', ({ get }) => {
  it('appends callers arriving together in few commits, each caller hearing a cursor at or past its own event', async () => {
    const store = new SqlEventStore(get().db);
    const grouped = new CoalescingAppender(store);
    const streams = Array.from({ length: 20 }, () => `grouped-${randomUUID()}`);
    const results = await Promise.all(streams.map((s) => grouped.append([verdict(s)])));
    const rows: Array<{ stream_id: string; position: number | string; commit_id?: string }> = await get().db.knex('events').whereIn('stream_id', streams).select('stream_id', 'position');
    expect(rows).to.have.length(20);
    const positionOf = new Map(rows.map((r) => [r.stream_id, Number(r.position)]));
    streams.forEach((s, i) => expect(results[i].cursor.position).to.be.at.least(positionOf.get(s)!));
    // The first caller goes alone; the other nineteen queued behind it and share the next commit.
    expect(new Set(results.map((r) => r.cursor.position)).size).to.be.at.most(3);
  });

  it('keeps a failure its caller\'s: the others of the batch are appended (a stream already taken refuses no_stream)', async () => {
    const store = new SqlEventStore(get().db);
    const taken = `grouped-${randomUUID()}`;
    await store.append(taken, verdict(taken).events, 'no_stream');
    const grouped = new CoalescingAppender(store);
    const others = Array.from({ length: 5 }, () => `grouped-${randomUUID()}`);
    const outcomes = await Promise.allSettled([...others.slice(0, 2), taken, ...others.slice(2)].map((s) => grouped.append([verdict(s)])));
    expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason).to.be.instanceOf(WrongExpectedRevision);
    for (const s of others) expect(await store.readStream(s)).to.have.length(1);
  });

  it('hands out distinct ids to concurrent callers, one sequence write per block', async () => {
    const generator = new SqlIdGenerator(get().db);
    const blocks = new IdBlocks(generator, 'grouped-spec', 64);
    const ids = await Promise.all(Array.from({ length: 100 }, () => blocks.next()));
    expect(new Set(ids).size).to.equal(100);
    const row = await get().db.knex('id_sequences').where({ name: 'grouped-spec' }).first();
    expect(Number(row.next_value)).to.equal(128);
    expect(Math.min(...ids)).to.equal(1);
  });
});
