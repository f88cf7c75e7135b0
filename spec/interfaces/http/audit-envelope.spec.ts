import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Knex } from 'knex';
import { rawRows } from '../../../infrastructure/db/database';
import { auditProjection } from '../../../projections/audit/projection';
import { seedFindings } from '../../support/backlog';
import { describeEachEngine } from '../../support/databases';
import { RunningVigil, startVigil } from '../../support/vigil';

/** The psql query of README "Audit log", as documented. */
function readmeQuery(): string {
  const readme = readFileSync(join(__dirname, '../../../README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Audit log'));
  return /```sql\n([\s\S]*?)```/.exec(section)![1];
}

interface Entry { seq: number; eventId: string; stream: string; revision: number; position: number; commit: string; type: string; actor: number | null; address: string | null; hash: string }

/**
 * Scheme 3 (ADR 0012): the chain covers each event's whole stored envelope, and verification
 * recomputes it from the `events` table. Each kind of tampering of that table is made, verified
 * over HTTP and undone (so each case starts from the intact log, which verifies again).
 */
describeEachEngine('Audit chain over the whole stored event envelope', ({ engine, get }) => {
  let v: RunningVigil;
  let token: string;
  let knex: Knex;
  let chain: Entry[];

  before(async () => {
    v = await startVigil({ engine, database: get() });
    token = await v.signIn();
    const one = await v.request('POST', '/repositories', { token, body: { url: 'https://git.example/envelope/one' } });
    await v.request('POST', '/repositories', { token, body: { url: 'https://git.example/envelope/two' } });
    // Issue lifecycle facts (left out of the chain) in the middle of the log.
    await seedFindings(v, { kind: 'repository', id: one.body.id }, [{ ruleId: 'R1' }, { ruleId: 'R2' }]);
    await v.request('PATCH', `/repositories/${one.body.id}`, { token, body: { name: 'renamed' } });
    await v.request('POST', '/repositories', { token, body: { url: 'https://git.example/envelope/three' } });
    // Nothing projects while the log is tampered with (the runner would chain a moved event).
    await v.services.projections.stop();
    knex = v.database.db.knex;
    chain = (await v.request('GET', '/audit-log?limit=1000', { token })).body;
  });
  after(async () => { await v.stop({ keepDatabase: true }); });

  const verify = async () => {
    const r = await v.request('GET', '/audit-log/verification', { token });
    expect(r.status).to.equal(200);
    return r.body;
  };
  /** A chained event in the middle of the log (not the first entry, not the newest). */
  const middle = (type = 'RepositoryRegistered') => chain.filter((e) => e.type === type)[1];
  const commitColumn = () => (engine === 'mysql' ? [] : [knex.raw('commit_id::text AS commit_id')]);

  /** The events rows at `positions`, as stored, to put back after a tampering. */
  const save = async (positions: number[]): Promise<Array<Record<string, unknown>>> => {
    const saved = await knex('events').select('position', ...commitColumn(), 'event_id', 'stream_id', 'revision', 'type', 'data', 'metadata').whereIn('position', positions);
    expect(saved).to.have.length(positions.length);
    return saved;
  };
  const restore = async (saved: Array<Record<string, unknown>>) => {
    await knex('events').whereIn('event_id', saved.map((r) => r.event_id as string)).del();
    await knex('events').insert(saved);
  };

  /** Runs a tampering of the events rows of `positions`, then puts those rows back as they were. */
  async function tampered(positions: number[], tamper: () => Promise<unknown>, check: (result: any) => void): Promise<void> {
    const saved = await save(positions);
    const before = await v.eventCount();
    try {
      await tamper();
      check(await verify());
    } finally {
      await restore(saved);
    }
    expect(await v.eventCount()).to.equal(before);
    expect(await verify()).to.include({ valid: true, brokenAt: null });
  }
  const row = (position: number) => knex('events').where({ position });
  const metadataOf = async (position: number) => JSON.parse((await row(position).first()).metadata);
  const brokenEvent = (entry: Entry, differs: string[]) => (result: any) => {
    expect(result).to.include({ valid: false, brokenAt: entry.seq, brokenPosition: entry.position, reason: 'the event it stands for is missing or changed' });
    expect(result.differs).to.deep.equal(differs);
  };

  it('an untouched log verifies valid, every chained event of it', async () => {
    const result = await verify();
    expect(result).to.include({ valid: true, brokenAt: null, brokenPosition: null, differs: null, reason: null, entries: chain.length });
    expect(chain.length).to.be.greaterThan(8);
    const issueFacts = await knex('events').whereIn('type', ['IssueDetected', 'IssueResolved', 'IssueReopened']).count({ n: '*' }).first();
    expect(Number(issueFacts!.n)).to.equal(2);
    expect(chain.map((e) => e.type)).not.to.include('IssueDetected');
  });

  it('data edited', async () => {
    const e = middle();
    await tampered([e.position], () => row(e.position).update({ data: JSON.stringify({ forged: true }) }), brokenEvent(e, ['data']));
  });

  it('a whitespace change in the stored data (parses to the same JSON)', async () => {
    const e = middle();
    const { data } = await row(e.position).first();
    await tampered([e.position], () => row(e.position).update({ data: `${data} ` }), brokenEvent(e, ['data']));
  });

  it('metadata: the actor edited', async () => {
    const e = middle();
    expect(e.actor).to.equal(1);
    const metadata = await metadataOf(e.position);
    await tampered([e.position], () => row(e.position).update({ metadata: JSON.stringify({ ...metadata, actor: 7 }) }), brokenEvent(e, ['metadata.actor']));
  });

  it('metadata: the address edited', async () => {
    const e = middle();
    expect(e.address).to.equal('127.0.0.1');
    const metadata = await metadataOf(e.position);
    await tampered([e.position], () => row(e.position).update({ metadata: JSON.stringify({ ...metadata, address: '10.9.8.7' }) }), brokenEvent(e, ['metadata.address']));
  });

  it('metadata: another field edited, or only whitespace', async () => {
    const e = middle();
    const metadata = await metadataOf(e.position);
    await tampered([e.position], () => row(e.position).update({ metadata: JSON.stringify({ ...metadata, userAgent: 'forged' }) }), brokenEvent(e, ['metadata']));
    const { metadata: text } = await row(e.position).first();
    await tampered([e.position], () => row(e.position).update({ metadata: ` ${text}` }), brokenEvent(e, ['metadata']));
  });

  it('type edited into another chained type', async () => {
    const e = middle();
    await tampered([e.position], () => row(e.position).update({ type: 'TargetDeleted' }), brokenEvent(e, ['type']));
  });

  it('type edited into a left-out type (an issue lifecycle fact) does not hide the event', async () => {
    const e = middle();
    await tampered([e.position], () => row(e.position).update({ type: 'IssueDetected' }), brokenEvent(e, ['type']));
  });

  it('a left-out issue fact turned into a chained type shows as an event the chain does not have', async () => {
    const fact = await knex('events').select('position', ...commitColumn()).where({ type: 'IssueDetected' }).orderBy('position').first();
    const cursor = (commit: unknown, position: number) => [BigInt(String(commit ?? '0')), BigInt(position)] as const;
    const [fc, fp] = cursor(fact.commit_id, Number(fact.position));
    // The entry the chain would have put after it: the first entry past it in cursor order.
    const next = chain.find((e) => { const [c, p] = cursor(e.commit, e.position); return c > fc || (c === fc && p > fp); })!;
    await tampered([Number(fact.position)], () => row(Number(fact.position)).update({ type: 'AccountCreated' }), (result) => {
      expect(result).to.include({ valid: false, brokenAt: next.seq, brokenPosition: Number(fact.position), reason: 'the log holds an event the chain does not have' });
    });
  });

  it('stream_id edited', async () => {
    const e = middle();
    await tampered([e.position], () => row(e.position).update({ stream_id: 'repository-999' }), brokenEvent(e, ['stream']));
  });

  it('revision edited', async () => {
    const e = middle();
    await tampered([e.position], () => row(e.position).update({ revision: e.revision + 1000 }), brokenEvent(e, ['revision']));
  });

  it('position edited', async () => {
    const e = middle();
    await tampered([e.position], () => row(e.position).update({ position: e.position + 100_000 }), brokenEvent(e, ['position']));
  });

  it('an event deleted in the middle', async () => {
    const e = middle();
    await tampered([e.position], () => row(e.position).del(), (result) => {
      expect(result).to.include({ valid: false, brokenAt: e.seq, brokenPosition: e.position, reason: 'the event it stands for is missing or changed', differs: null });
    });
  });

  it('two events\' positions swapped (of two commands)', async () => {
    const a = chain.filter((e) => e.type === 'RepositoryRegistered')[0];
    const b = chain.find((e) => e.type === 'TargetUpdated')!;
    expect(a.seq).to.be.lessThan(b.seq);
    await tampered([a.position, b.position], () => swap(a.position, b.position), (result) => {
      expect(result).to.include({ valid: false, brokenAt: a.seq, brokenPosition: a.position, reason: 'the event it stands for is missing or changed' });
      expect(result.differs).to.include('position');
    });
  });

  it('two events\' positions swapped (of one command, one commit)', async () => {
    const i = chain.findIndex((e, k) => k > 1 && e.type === 'RepositoryRegistered' && chain[k - 1].commit === e.commit);
    const [a, b] = [chain[i - 1], chain[i]];
    await tampered([a.position, b.position], () => swap(a.position, b.position), (result) => {
      expect(result).to.include({ valid: false, brokenAt: a.seq, brokenPosition: a.position, reason: 'the event it stands for is missing or changed' });
      expect(result.differs).to.include('position');
    });
  });

  it('the newest entries removed while the audit checkpoint stands', async () => {
    const newest = chain[chain.length - 1];
    const saved = await knex('audit_log').where({ seq: newest.seq });
    await knex('audit_log').where({ seq: newest.seq }).del();
    try {
      expect(await verify()).to.include({ valid: false, brokenAt: newest.seq, brokenPosition: newest.position, reason: `entry ${newest.seq} is missing` });
    } finally {
      await knex('audit_log').insert(saved);
    }
    expect(await verify()).to.include({ valid: true });
  });

  it('what the chain cannot show: the newest events removed with their entries and the checkpoint moved back (keep the newest hash elsewhere)', async () => {
    const newest = chain[chain.length - 1];
    const before = chain[chain.length - 2];
    const checkpoint = await knex('projection_checkpoints').where({ name: 'audit' }).first();
    const entry = await knex('audit_log').where({ seq: newest.seq });
    const saved = await save([newest.position]);
    try {
      await row(newest.position).del();
      await knex('audit_log').where({ seq: newest.seq }).del();
      await knex('projection_checkpoints').where({ name: 'audit' }).update({ commit_id: before.commit, position: before.position });
      expect(await verify()).to.include({ valid: true, entries: chain.length - 1 });
    } finally {
      await restore(saved);
      await knex('audit_log').where({ seq: newest.seq }).del();
      await knex('audit_log').insert(entry);
      await knex('projection_checkpoints').where({ name: 'audit' }).update({ commit_id: checkpoint.commit_id, position: checkpoint.position });
    }
    expect(await verify()).to.include({ valid: true, entries: chain.length });
  });

  if (engine !== 'mysql') {
    it('the psql query of the README recomputes every entry from its event row and lists the ones that do not match', async () => {
      const mismatches = async () => rawRows<{ seq: number }>(v.database.db, await knex.raw(readmeQuery())).map((r) => Number(r.seq));
      expect(await mismatches()).to.deep.equal([]);
      const e = middle();
      const metadata = await metadataOf(e.position);
      await tampered([e.position], async () => {
        await row(e.position).update({ metadata: JSON.stringify({ ...metadata, actor: 7 }) });
        expect(await mismatches()).to.deep.equal([e.seq]);
      }, brokenEvent(e, ['metadata.actor']));
      expect(await mismatches()).to.deep.equal([]);
    });
  }

  it('a rebuild yields the same chain, entry for entry', async () => {
    const rows = async () => (await knex('audit_log').orderBy('seq')).map((r: Record<string, unknown>) => ({ ...r }));
    const captured = await rows();
    expect(captured).to.have.length(chain.length);
    await v.services.projections.rebuild([auditProjection]);
    expect(await rows()).to.deep.equal(captured);
    await v.services.projections.rebuild();
    expect(await rows()).to.deep.equal(captured);
    expect(await verify()).to.include({ valid: true, entries: chain.length });
  });

  /** Swaps two events' positions through a free one (the position is the table's key). */
  async function swap(p1: number, p2: number): Promise<void> {
    const free = -1;
    await row(p1).update({ position: free });
    await row(p2).update({ position: p1 });
    await row(free).update({ position: p2 });
  }
});
