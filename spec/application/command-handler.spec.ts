import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { CommandHandler } from '../../application/command-handler';
import { WrongExpectedRevision } from '../../application/ports/event-store';
import { jitteredRetry } from '../../application/shared/retry-policy';
import { Decider, DomainError, refuse } from '../../domain/shared/decider';
import { SqlIdGenerator } from '../../infrastructure/db/sql-id-generator';
import { SqlEventStore } from '../../infrastructure/eventstore/sql-event-store';
import { describeEachEngine } from '../support/databases';

/** A counter that refuses to pass a ceiling: enough of a decider to race on. */
type Counted = { type: 'Counted'; data: { n: number } };
const counter: Decider<{ type: 'Count'; ceiling?: number }, Counted, { n: number }> = {
  initialState: () => ({ n: 0 }),
  decide: (c, s) => {
    if (c.ceiling !== undefined && s.n >= c.ceiling) throw refuse.conflict('At the ceiling.');
    return [{ type: 'Counted', data: { n: s.n + 1 } }];
  },
  evolve: (s, e) => ({ n: e.data.n }),
};

const ctx = { actor: 1, now: new Date('2026-01-01T00:00:00.000Z') };
const noWait = { waitFor: async () => undefined };

/** The one command path (issue #18): a unit of work read, decided and committed together, retried as a whole. */
describeEachEngine('CommandHandler', ({ get }) => {
  const handler = (attempts = 5) => {
    const store = new SqlEventStore(get().db);
    return { store, commands: new CommandHandler(store, new SqlIdGenerator(get().db), noWait, jitteredRetry(attempts, 1, 4)) };
  };

  it('commits every decision of a unit of work in one commit, each with the revision its stream was read at', async () => {
    const { store, commands } = handler();
    const [a, b] = [`count-${randomUUID()}`, `count-${randomUUID()}`];
    const { committed } = await commands.transact(ctx, async (attempt) => {
      await attempt.decide(a, counter, { type: 'Count' });
      await attempt.decide(b, counter, { type: 'Count' });
    });
    expect(committed!.types).to.deep.equal(['Counted']);
    expect((await store.readStream(a)).map((e) => e.data)).to.deep.equal([{ n: 1 }]);
    expect((await store.readStream(b)).map((e) => e.data)).to.deep.equal([{ n: 1 }]);
  });

  it('runs the whole unit of work again on fresh state when another writer moved one of its streams', async () => {
    const { store, commands } = handler();
    const stream = `count-${randomUUID()}`;
    let runs = 0;
    await commands.transact(ctx, async (attempt) => {
      runs += 1;
      await attempt.decide(stream, counter, { type: 'Count' });
      // Another writer gets in between the read and the commit, once.
      if (runs === 1) await store.append(stream, [{ id: randomUUID(), type: 'Counted', data: { n: 1 }, metadata: { actor: null, at: ctx.now.toISOString() } }], 'no_stream');
    });
    expect(runs).to.equal(2);
    expect((await store.readStream(stream)).map((e) => e.data)).to.deep.equal([{ n: 1 }, { n: 2 }]);
  });

  it('gives up after the policy\'s attempts, with the conflict', async () => {
    const { store, commands } = handler(3);
    const stream = `count-${randomUUID()}`;
    let runs = 0;
    const failed = await commands.transact(ctx, async (attempt) => {
      runs += 1;
      const { revision } = await attempt.decide(stream, counter, { type: 'Count' });
      await store.append(stream, [{ id: randomUUID(), type: 'Counted', data: { n: runs } , metadata: { actor: null, at: ctx.now.toISOString() } }], revision ?? 'no_stream');
    }).catch((e: unknown) => e);
    expect(failed).to.be.instanceOf(WrongExpectedRevision);
    expect(runs).to.equal(3);
  });

  it('a pinned revision (If-Match) that moved answers the caller\'s refusal and retries nothing', async () => {
    const { commands } = handler();
    const stream = `count-${randomUUID()}`;
    await commands.execute(stream, counter, { type: 'Count' }, ctx);
    const stale = await commands.execute(stream, counter, { type: 'Count' }, ctx, { expectedRevision: 5, onConflict: () => refuse.conflict('moved', 'issue-changed-meanwhile') }).catch((e: unknown) => e);
    expect(stale).to.be.instanceOf(DomainError);
    expect((stale as DomainError).problemType).to.equal('issue-changed-meanwhile');
    const decided = await commands.execute(stream, counter, { type: 'Count' }, ctx, { expectedRevision: 0 });
    expect(decided.revision).to.equal(1);
    expect(decided.state).to.deep.equal({ n: 2 });
  });

  it('a refusal of the decider writes nothing; a unit of work that decides nothing commits nothing', async () => {
    const { store, commands } = handler();
    const stream = `count-${randomUUID()}`;
    await commands.execute(stream, counter, { type: 'Count' }, ctx);
    const refused = await commands.execute(stream, counter, { type: 'Count', ceiling: 1 }, ctx).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(DomainError);
    const none = await commands.transact(ctx, async () => 'nothing');
    expect(none).to.deep.equal({ value: 'nothing', committed: null });
    expect(await store.readStream(stream)).to.have.length(1);
  });
});
