import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { CommandHandler } from '../../../application/command-handler';
import { Principal } from '../../../application/identity/principal';
import { CloneUrlCheck } from '../../../application/ports/clone-url-check';
import { EventStore, StreamAppend } from '../../../application/ports/event-store';
import { IdGenerator } from '../../../application/ports/ids';
import { jitteredRetry } from '../../../application/shared/retry-policy';
import { PortfolioReads, TargetReads, TargetRow } from '../../../application/targets/ports';
import { TargetService } from '../../../application/targets/target-service';
import { DomainError } from '../../../domain/shared/decider';
import { streams } from '../../../domain/shared/streams';
import { SqlEventStore } from '../../../infrastructure/eventstore/sql-event-store';
import { createTestDatabase, TestDatabase } from '../../support/databases';

const ctx = { actor: 1, now: new Date('2026-01-01T00:00:00.000Z') };
const admin: Principal = {
  kind: 'session', accountId: 1, username: 'admin', displayName: 'Admin', roles: ['administrator'], scopes: null, withdrawnScopes: [], keyId: null, restriction: null,
};
const metadata = { actor: null, at: ctx.now.toISOString() };

/** A store whose first multi-stream commit is overtaken by another writer's append (a race lost between read and commit). */
function overtaken(store: EventStore, rival: (appends: StreamAppend[]) => StreamAppend | null): EventStore {
  let raced = false;
  return Object.assign(Object.create(store) as EventStore, {
    appendMany: async (appends: StreamAppend[]) => {
      const first = raced ? null : rival(appends);
      raced = true;
      if (first) await store.append(first.stream, first.events, first.expectedRevision);
      return store.appendMany(appends);
    },
  });
}

/**
 * The target commands as one unit of work (issue #18): a race lost on the uniqueness key or on a
 * credential's stream runs the whole work again, which reads every stream afresh.
 */
describe('TargetService units of work @db', () => {
  let test: TestDatabase;
  let nextId = 100;
  const ids: IdGenerator = { next: async () => ++nextId, nextBlock: async () => [], uuid: randomUUID };
  const portfolio = {} as PortfolioReads;
  const keys = { revokeKeysRestrictedTo: async () => undefined };

  before(async () => { test = await createTestDatabase('pglite'); });
  after(async () => { await test.drop(); });

  function service(store: EventStore, sees: (id: number) => boolean, guard: CloneUrlCheck | null = null) {
    const reads: TargetReads = {
      findVisible: async (_p, _kind, id) => (sees(id) ? { id } as TargetRow : null),
      get: async (_p, _kind, id) => ({ id }) as never,
    };
    const commands = new CommandHandler(store, ids, { waitFor: async () => undefined }, jitteredRetry(5, 1, 4));
    return new TargetService(reads, portfolio, commands, ids, keys, guard);
  }

  /** Reserves the key of the registration being committed for repository 7, first. */
  const rivalFor = (appends: StreamAppend[]) => {
    const key = appends.find((a) => a.stream.startsWith('target-key-'))!;
    const data = { key: key.stream.slice('target-key-'.length), targetId: 7 };
    return { stream: key.stream, expectedRevision: 'no_stream' as const, events: [{ id: randomUUID(), type: 'TargetKeyReserved', data, metadata }] };
  };

  it('[S1.2.1-34] [S1.7-04] a registration that loses the race for its key reads the key again and names the winner the caller sees', async () => {
    const store = new SqlEventStore(test.db);
    const refused = await service(overtaken(store, rivalFor), () => true)
      .register(ctx, admin, 'repository', { url: 'https://git.example/race/named' }).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(DomainError);
    expect((refused as DomainError).problemType).to.equal('target-already-registered');
    expect((refused as DomainError).extensions).to.deep.equal({ existingRepositoryId: 7 });
    expect(await store.readStream(streams.target('repository', nextId))).to.deep.equal([]);
  });

  it('[S1.7-04] names no winner the caller does not see', async () => {
    const store = new SqlEventStore(test.db);
    const refused = await service(overtaken(store, rivalFor), () => false)
      .register(ctx, admin, 'repository', { url: 'https://git.example/race/unnamed' }).catch((e: unknown) => e);
    expect((refused as DomainError).problemType).to.equal('target-already-registered');
    expect((refused as DomainError).extensions).to.deep.equal({});
    expect((refused as DomainError).message).not.to.match(/\d/);
  });

  /** A saved HTTPS token for git.example on its stream. */
  async function savedToken(store: EventStore, id: number) {
    await store.append(streams.credential(id), [{
      id: randomUUID(), type: 'CredentialSaved', metadata,
      data: { id, kind: 'https_token', name: 'ci', ssh: null, https: { host: 'git.example', username: 'ci' }, sealed: { alg: 'A256GCM', kid: '00', iv: '', ct: '', tag: '' }, savedAt: metadata.at, savedBy: 1, siem: {} },
    }], 'no_stream');
  }

  it('[S1.8.3-33] a PATCH of the URL that runs again after a lost race asks the clone guard once, and commits on fresh revisions', async () => {
    const store = new SqlEventStore(test.db);
    const { id } = await service(store, () => true).register(ctx, admin, 'repository', { url: 'https://git.example/race/before' }) as { id: number };
    const asked: string[] = [];
    const guard: CloneUrlCheck = { check: async (url) => { asked.push(url); return { allowed: true }; } };
    // The key the PATCH gives up moves meanwhile (its holder reserves it again): the work runs twice.
    let released = '';
    const rereserve = (appends: StreamAppend[]) => {
      const old = appends.find((a) => a.events.some((e) => e.type === 'TargetKeyReleased'))!;
      released = old.stream;
      return { stream: old.stream, expectedRevision: old.expectedRevision, events: [{ id: randomUUID(), type: 'TargetKeyReserved', data: old.events[0].data, metadata }] };
    };
    await service(overtaken(store, rereserve), () => true, guard).update(ctx, admin, 'repository', id, { url: 'https://git.example/race/after' });
    expect(asked).to.deep.equal(['https://git.example/race/after']);
    expect((await store.readStream(released)).map((e) => e.type)).to.deep.equal(['TargetKeyReserved', 'TargetKeyReserved', 'TargetKeyReleased']);
    expect((await store.readStream(streams.target('repository', id))).map((e) => e.type)).to.deep.equal(['RepositoryRegistered', 'TargetUpdated']);
  });

  it('a credential removed between the read and the commit is read again: the registration is refused (400) and writes nothing', async () => {
    const store = new SqlEventStore(test.db);
    const credential = streams.credential(55);
    await savedToken(store, 55);
    const removal = () => ({ stream: credential, expectedRevision: 0, events: [{ id: randomUUID(), type: 'CredentialRemoved', data: { id: 55, kind: 'https_token', removedAt: metadata.at, removedBy: 1, siem: {} }, metadata }] });
    const refused = await service(overtaken(store, removal), () => true)
      .register(ctx, admin, 'repository', { url: 'https://git.example/race/credential', httpsTokenId: 55 }).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(DomainError);
    expect((refused as DomainError).kind).to.equal('invalid');
    expect((refused as DomainError).message).to.match(/No stored credential 55/);
    expect(await store.readStream(streams.target('repository', nextId))).to.deep.equal([]);
    expect((await store.readStream(credential)).map((e) => e.type)).to.deep.equal(['CredentialSaved', 'CredentialRemoved']);
  });
});
