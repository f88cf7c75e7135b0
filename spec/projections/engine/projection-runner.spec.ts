import * as chai from 'chai';
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { RecordedEvent } from '../../../domain/shared/event-envelope';
import { SqlEventStore } from '../../../infrastructure/eventstore/sql-event-store';
import { ProjectionFailure } from '../../../projections/engine/event-failures';
import { Projection } from '../../../projections/engine/projection';
import { ProjectionRunner } from '../../../projections/engine/projection-runner';
import chaiAsPromised from '../../support/chai-as-promised';
import { describeEachEngine } from '../../support/databases';

chai.use(chaiAsPromised);

/** A projection over tables of its own: one row per event, and a trace of the events in the order they were applied. */
function probe(fail: (data: { n: number }) => Error | null): Projection {
  return {
    name: 'probe',
    handles: new Set(['Probed']),
    tables: ['probe_rows', 'probe_trace'],
    async apply(w, events: RecordedEvent<any>[]) {
      for (const e of events) {
        const error = fail(e.data);
        if (error) throw error;
        w.insert('probe_rows', { n: e.data.n, at: e.metadata.at }, ['n']);
        const append = w.engine === 'mysql' ? 'CONCAT(trace, ?)' : 'trace || ?::text';
        await w.run(['probe_trace'], (trx) => trx('probe_trace').where({ id: 1 }).update({ trace: trx.raw(append, [`${e.data.n},`]) }));
      }
    },
  };
}

const AT = '2024-05-01T10:00:00.000Z';

describeEachEngine('Projection runner: a failing event is set aside (ADR 0011)', ({ get }) => {
  before(async () => {
    const knex = get().db.knex;
    await knex.schema.createTable('probe_rows', (t) => { t.integer('n').primary(); t.string('at', 30).notNullable(); });
    await knex.schema.createTable('probe_trace', (t) => { t.integer('id').primary(); t.text('trace').notNullable(); });
  });

  beforeEach(async () => {
    const knex = get().db.knex;
    await knex('probe_rows').del();
    await knex('probe_trace').del();
    await knex('probe_trace').insert({ id: 1, trace: '' });
    await knex('projection_failures').del();
    await knex('projection_checkpoints').where({ name: 'probe' }).del();
    await knex('events').del();
  });

  async function appendProbes(count: number): Promise<void> {
    const store = new SqlEventStore(get().db);
    await store.append('probes', Array.from({ length: count }, (_, i) => ({ id: randomUUID(), type: 'Probed', data: { n: i + 1 }, metadata: { actor: null, at: AT } })), 'no_stream');
  }

  it('applies every other event of the batch once, in order, and records each failing one with its position; a second catch-up changes nothing', async () => {
    const db = get().db;
    await appendProbes(60);
    const bad = new Set([3, 17, 18, 60]);
    const reported: ProjectionFailure[] = [];
    const runner = new ProjectionRunner(db, new SqlEventStore(db), [probe((d) => (bad.has(d.n) ? new TypeError(`bad probe ${d.n}`) : null))], {
      batchSize: 25, onFailure: (f) => reported.push(f),
    });
    await runner.ensureCheckpoints();
    await runner.catchUp();
    await runner.catchUp();

    const good = Array.from({ length: 60 }, (_, i) => i + 1).filter((n) => !bad.has(n));
    expect((await db.knex('probe_rows').orderBy('n').pluck('n')).map(Number)).to.deep.equal(good);
    // Only the good events, each once, in log order.
    expect((await db.knex('probe_trace').first('trace')).trace).to.equal(good.map((n) => `${n},`).join(''));
    const positions = new Map((await db.knex('events').select('position', 'data')).map((e: { position: number | string; data: string }) => [JSON.parse(e.data).n as number, Number(e.position)]));
    const failures = await runner.failures(['probe']);
    expect(failures.map((f) => [f.position, f.type, f.error])).to.deep.equal([60, 18, 17, 3].map((n) => [positions.get(n), 'Probed', `TypeError: bad probe ${n}`]));
    expect(reported.map((f) => f.position).sort((a, b) => a - b)).to.deep.equal([3, 17, 18, 60].map((n) => positions.get(n)));
    const [status] = await runner.status();
    expect(status).to.deep.include({ name: 'probe', position: positions.get(60), lagEvents: 0 });
    expect(status.failures.count).to.equal(4);
    expect(status.failures.latest.map((f) => f.position)).to.deep.equal([60, 18, 17, 3].map((n) => positions.get(n)));
  });

  it('rebuilds: empties the failures of the projection and records them again', async () => {
    const db = get().db;
    await appendProbes(10);
    const runner = new ProjectionRunner(db, new SqlEventStore(db), [probe((d) => (d.n === 4 ? new Error('four') : null))], { batchSize: 25 });
    await runner.ensureCheckpoints();
    await runner.catchUp();
    const before = await runner.failures(['probe']);
    await runner.rebuild();
    const after = await runner.failures(['probe']);
    expect(after.map((f) => [f.position, f.error])).to.deep.equal(before.map((f) => [f.position, f.error]));
    expect(after).to.have.length(1);
    expect(await db.knex('probe_rows').count({ n: '*' }).first()).to.satisfy((r: { n: unknown }) => Number(r.n) === 9);
  });

  it('never sets an event aside for an error of the database or the connection: the step fails and nothing moves', async () => {
    const db = get().db;
    await appendProbes(5);
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    const runner = new ProjectionRunner(db, new SqlEventStore(db), [probe((d) => (d.n === 2 ? deadlock : null))], { batchSize: 25 });
    await runner.ensureCheckpoints();
    expect((await expect(runner.catchUp()).to.be.rejectedWith(Error)).message).to.equal('deadlock detected');
    expect(await db.knex('probe_rows').count({ n: '*' }).first()).to.satisfy((r: { n: unknown }) => Number(r.n) === 0);
    expect(await runner.failures(['probe'])).to.deep.equal([]);
    expect(Number((await db.knex('projection_checkpoints').where({ name: 'probe' }).first('position')).position)).to.equal(0);
  });
});
