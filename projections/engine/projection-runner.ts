import { Knex } from 'knex';
import { compareCursors, Cursor, RecordedEvent, START } from '../../domain/shared/event-envelope';
import { Database, rawRows } from '../../infrastructure/db/database';
import { CheckpointWaiters } from './checkpoint-waiters';
import { failureOf, FAILURES_TABLE, isTransient, ProjectionFailure, recordFailures } from './event-failures';
import { handledBy, lanesOf, Projection } from './projection';
import { RowWriter } from './row-writer';

/** The newest failures GET /health shows per projection. */
const LATEST_FAILURES = 5;

export interface ProjectionStatus {
  name: string;
  position: number;
  lagEvents: number;
  /** Events it could not take and skipped (ADR 0011): how many, and the newest. */
  failures: { count: number; latest: Array<Pick<ProjectionFailure, 'position' | 'type' | 'at'>> };
}

/** Where events come from: the SQL store reads inside the projection's transaction. */
export interface EventSource {
  readAll(after: Cursor, limit: number, context?: Knex.Transaction): Promise<RecordedEvent[]>;
  countAfter?(after: Cursor, bound?: number): Promise<number>;
}

/** What a committed step applied: the projections that took events, and the tables rows were inserted into (null: not known, a step that set events aside). */
export interface AppliedStep { projections: ReadonlySet<string>; inserted: ReadonlySet<string> | null }

interface CheckpointRow { name: string; commit_id: string; position: number | string }

const cursorOf = (r: CheckpointRow): Cursor => ({ commit: String(r.commit_id), position: Number(r.position) });

/**
 * Runs projections from the event log into the read database (ADR 0003): catch-up, then live.
 * A step locks the checkpoint rows of the projections (SKIP LOCKED, so a second instance leaves
 * them to whoever holds them), reads the events after them once per distinct checkpoint, applies
 * each projection through a RowWriter, moves the checkpoints and commits: rows and checkpoints in
 * one transaction, so every event counts exactly once. Read-your-writes waits on the checkpoint
 * rows in the database, not on an in-process signal, so it holds with several instances.
 *
 * An event a projection cannot take never stops it (ADR 0011): when a batch fails, each of the
 * step's projections is stepped again on its own, its batch in a savepoint and, if that fails,
 * halved down to single events, each part in a savepoint; an event that fails alone is recorded in
 * `projection_failures`, reported through `onFailure` and skipped, in the transaction that moves
 * the checkpoint. Errors of the database or the connection are not the event's: they fail the step.
 */
export class ProjectionRunner {
  private running = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private lastError: Error | null = null;
  /** A command appended while a step ran: step again at once instead of sleeping. */
  private nudged = false;
  private readonly waiters: CheckpointWaiters;
  private readonly appliedListeners: Array<(step: AppliedStep) => void> = [];

  constructor(
    private readonly db: Database,
    private readonly source: EventSource,
    readonly projections: readonly Projection[],
    private readonly options: {
      batchSize?: number; idleMs?: number; sourceIsDatabase?: boolean; onError?: (e: Error, p: string) => void; onFailure?: (f: ProjectionFailure) => void;
    } = {},
  ) {
    this.waiters = new CheckpointWaiters(async (names) => {
      const rows: CheckpointRow[] = await this.db.knex('projection_checkpoints').select('name', 'commit_id', 'position').whereIn('name', names);
      return rows.map((r) => [r.name, cursorOf(r)]);
    });
  }

  get batchSize(): number { return this.options.batchSize ?? 2000; }

  async ensureCheckpoints(): Promise<void> {
    const existing = new Set((await this.db.knex('projection_checkpoints').select('name')).map((r: { name: string }) => r.name));
    for (const p of this.projections) {
      if (existing.has(p.name)) continue;
      try {
        await this.db.knex('projection_checkpoints').insert({ name: p.name, commit_id: '0', position: 0, updated_at: new Date().toISOString() });
      } catch {
        // another instance inserted it first
      }
    }
  }

  /**
   * One batch for the given projections. Returns the largest number of events read for any of
   * them (0 = all caught up, or all held by another instance).
   */
  async step(projections: readonly Projection[] = this.projections): Promise<number> {
    try {
      return await this.stepTogether(projections);
    } catch (error) {
      if (isTransient(error)) throw error;
      // Something in the batch cannot be written: each projection again on its own, setting aside
      // the events it cannot take. The others' batch is applied again as a whole (rolled back above).
      let most = 0;
      for (const p of projections) most = Math.max(most, await this.stepIsolating(p));
      return most;
    }
  }

  private async stepTogether(projections: readonly Projection[]): Promise<number> {
    // Checkpoint values read under the row locks or written by this step: committed once the
    // transaction is, so they may release read-your-writes waiters after it.
    const committed = new Map<string, Cursor>();
    const appliedAll = new Set<string>();
    const inserted = new Set<string>();
    const most = await this.db.knex.transaction(async (trx) => {
      const rows = await this.lockCheckpoints(trx, projections.map((p) => p.name));
      const groups = new Map<string, { from: Cursor; members: Projection[] }>();
      for (const row of rows) {
        const p = projections.find((x) => x.name === row.name)!;
        committed.set(row.name, cursorOf(row));
        const key = `${row.commit_id}:${row.position}`;
        if (!groups.has(key)) groups.set(key, { from: cursorOf(row), members: [] });
        groups.get(key)!.members.push(p);
      }
      let most = 0;
      for (const { from, members } of groups.values()) {
        const events = await this.read(from, trx);
        if (events.length === 0) continue;
        most = Math.max(most, events.length);
        const last = events[events.length - 1].cursor;
        // One writer for the group: projections own disjoint tables, so their buffered rows
        // can all go out together at the end.
        const writer = new RowWriter(trx, this.db.engine);
        const applied: string[] = [];
        for (const p of members) {
          const mine = events.filter((e) => handledBy(p, e.type));
          if (mine.length > 0) {
            await p.apply(writer, mine);
            applied.push(p.name);
          }
        }
        await writer.flush();
        await this.moveCheckpoints(trx, members, applied, last);
        for (const m of members) committed.set(m.name, last);
        for (const name of applied) appliedAll.add(name);
        for (const table of writer.inserted) inserted.add(table);
      }
      return most;
    });
    this.waiters.observe(committed);
    this.tellApplied({ projections: appliedAll, inserted });
    return most;
  }

  /**
   * One batch of one projection with its failing events set aside (applyAside): those that fail
   * alone are recorded and skipped. Rows, failures and the checkpoint commit together, so each
   * event still counts exactly once.
   */
  private async stepIsolating(p: Projection): Promise<number> {
    const committed = new Map<string, Cursor>();
    const appliedAll = new Set<string>();
    const failures: ProjectionFailure[] = [];
    const read = await this.db.knex.transaction(async (trx) => {
      const [row] = await this.lockCheckpoints(trx, [p.name]);
      if (!row) return 0;
      committed.set(p.name, cursorOf(row));
      const events = await this.read(cursorOf(row), trx);
      if (events.length === 0) return 0;
      const last = events[events.length - 1].cursor;
      const mine = events.filter((e) => handledBy(p, e.type));
      const failed = mine.length > 0 ? await this.applyAside(trx, p, mine) : [];
      if (failed.length > 0) {
        const at = new Date().toISOString();
        for (const { event, error } of failed) failures.push(failureOf(p.name, event, error, at));
        await recordFailures(new RowWriter(trx, this.db.engine), failures);
      }
      const applied = failed.length < mine.length ? [p.name] : [];
      await this.moveCheckpoints(trx, [p], applied, last);
      committed.set(p.name, last);
      for (const name of applied) appliedAll.add(name);
      return events.length;
    });
    this.waiters.observe(committed);
    this.tellApplied({ projections: appliedAll, inserted: null });
    for (const f of failures) this.options.onFailure?.(f);
    return read;
  }

  /**
   * Applies events in a savepoint; a part that fails is halved and each half applied the same way,
   * down to single events, in order. Answers the events that fail alone, with their errors. The
   * outcome is that of applying event by event (projections give the same rows however a run of
   * events is split), for about 2·log2(n) savepoints per failing event instead of n: few PostgreSQL
   * subtransactions, and the events around it are applied in runs, not one at a time.
   */
  private async applyAside(trx: Knex.Transaction, p: Projection, events: RecordedEvent[]): Promise<Array<{ event: RecordedEvent; error: unknown }>> {
    const error = await this.applyInSavepoint(trx, p, events);
    if (error === null) return [];
    if (events.length === 1) return [{ event: events[0], error }];
    const half = Math.ceil(events.length / 2);
    return [...await this.applyAside(trx, p, events.slice(0, half)), ...await this.applyAside(trx, p, events.slice(half))];
  }

  /** Applies events in a savepoint: null when written, else the error (the database's own errors are thrown: the step ends). */
  private async applyInSavepoint(trx: Knex.Transaction, p: Projection, events: RecordedEvent[]): Promise<unknown> {
    try {
      await trx.transaction(async (savepoint) => {
        const writer = new RowWriter(savepoint, this.db.engine);
        await p.apply(writer, events);
        await writer.flush();
      });
      return null;
    } catch (error) {
      if (isTransient(error)) throw error;
      return error ?? new Error('the projection threw nothing');
    }
  }

  /** The checkpoint rows of the named projections this instance may step now (SKIP LOCKED: not those another holds). */
  private async lockCheckpoints(trx: Knex.Transaction, names: readonly string[]): Promise<CheckpointRow[]> {
    const lock = this.db.engine === 'pglite' ? '' : ' FOR UPDATE SKIP LOCKED';
    return rawRows<CheckpointRow>(this.db, await trx.raw(
      `SELECT name, commit_id, position FROM projection_checkpoints WHERE name IN (${names.map(() => '?').join(', ')}) ORDER BY name${lock}`, names,
    ));
  }

  private read(from: Cursor, trx: Knex.Transaction): Promise<RecordedEvent[]> {
    return this.source.readAll(from, this.batchSize, this.options.sourceIsDatabase === false ? undefined : trx);
  }

  private async moveCheckpoints(trx: Knex.Transaction, members: readonly Projection[], applied: readonly string[], last: Cursor): Promise<void> {
    // handled_position (v011) moves only for the projections that applied something: it
    // versions their tables (the gate caches candidate issues under it).
    const handled = applied.length === 0 ? trx.raw('handled_position')
      : trx.raw(`CASE WHEN name IN (${applied.map(() => '?').join(', ')}) THEN ? ELSE handled_position END`, [...applied, last.position]);
    await trx('projection_checkpoints').whereIn('name', members.map((m) => m.name))
      .update({ commit_id: last.commit, position: last.position, updated_at: new Date().toISOString(), handled_position: handled });
  }

  /** Runs every projection until none has anything left (catch-up). */
  async catchUp(): Promise<void> {
    await this.replayLanes(this.projections);
  }

  /**
   * Each lane (Projection.lane) stepped in a loop of its own, the loops side by side, until caught up.
   * `onProgress` hears the events the slowest lane has read so far (a rebuild's progress bar).
   */
  private async replayLanes(projections: readonly Projection[], onProgress?: (eventsDone: number) => void): Promise<void> {
    const lanes = lanesOf(projections);
    const done = lanes.map(() => 0);
    await Promise.all(lanes.map(async (lane, i) => {
      for (;;) {
        const read = await this.step(lane);
        done[i] += read;
        onProgress?.(Math.min(...done));
        if (read !== this.batchSize) break; // a full batch: more may follow
      }
    }));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        this.nudged = false;
        let busy = false;
        try {
          busy = (await this.step()) === this.batchSize;
        } catch (error) {
          this.lastError = error as Error;
          this.options.onError?.(error as Error, this.projections.map((p) => p.name).join(','));
          await this.stepEachAlone();
        }
        if (!busy && !this.nudged && this.running) await this.sleep(this.options.idleMs ?? 250);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  /**
   * Hears, after each commit of this process's steps, the projections that applied events in it
   * (their tables changed): an in-process signal for work that follows a read model, such as the
   * SIEM deliverer after the outbox projection queued rows. Other instances do not hear it; their
   * loops keep their own intervals.
   */
  onApplied(listener: (step: AppliedStep) => void): void {
    this.appliedListeners.push(listener);
  }

  private tellApplied(step: AppliedStep): void {
    if (step.projections.size === 0) return;
    for (const listener of this.appliedListeners) {
      try {
        listener(step);
      } catch (error) {
        this.options.onError?.(error as Error, [...step.projections].join(','));
      }
    }
  }

  /** Nudges the live loop: a command just appended. */
  nudge(): void {
    this.nudged = true;
    this.wake?.();
  }

  /**
   * Read-your-writes (trap 3): resolves once every projection that reads one of `types` has a
   * checkpoint at or past `cursor`; false when `timeoutMs` passed first.
   */
  async waitFor(cursor: Cursor, types: readonly string[], timeoutMs: number): Promise<boolean> {
    const names = this.projections.filter((p) => types.some((t) => handledBy(p, t))).map((p) => p.name);
    if (names.length === 0) return true;
    if (this.running) {
      this.nudge();
      return this.waiters.wait(names, cursor, timeoutMs);
    }
    const deadline = Date.now() + timeoutMs;
    let delay = 1;
    for (;;) {
      await this.catchUp();
      const rows: CheckpointRow[] = await this.db.knex('projection_checkpoints').select('name', 'commit_id', 'position').whereIn('name', names);
      const done = rows.length === names.length && rows.every((r) => compareCursors(cursorOf(r), cursor) >= 0);
      if (done) return true;
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 50);
    }
  }

  async status(): Promise<ProjectionStatus[]> {
    const rows: CheckpointRow[] = await this.db.knex('projection_checkpoints').select('name', 'commit_id', 'position');
    const byName = new Map(rows.map((r) => [r.name, r]));
    const counts: Array<{ projection: string; n: number | string }> = await this.db.knex(FAILURES_TABLE).select('projection').count({ n: '*' }).groupBy('projection');
    const failed = new Map(counts.map((c) => [c.projection, Number(c.n)]));
    const result: ProjectionStatus[] = [];
    for (const p of this.projections) {
      const row = byName.get(p.name);
      const cursor = row ? cursorOf(row) : START;
      const lag = this.source.countAfter ? await this.source.countAfter(cursor, 1_000_000) : 0;
      const count = failed.get(p.name) ?? 0;
      const latest = count === 0 ? [] : (await this.failures([p.name], LATEST_FAILURES)).map(({ position, type, at }) => ({ position, type, at }));
      result.push({ name: p.name, position: cursor.position, lagEvents: lag, failures: { count, latest } });
    }
    return result;
  }

  /** Recorded failures of the named projections, newest first (by position). */
  async failures(names: readonly string[], limit?: number): Promise<ProjectionFailure[]> {
    const q = this.db.knex(FAILURES_TABLE).whereIn('projection', names).orderBy('position', 'desc').orderBy('projection');
    if (limit !== undefined) q.limit(limit);
    const rows: Array<Record<string, string | number>> = await q;
    return rows.map((r) => ({
      projection: String(r.projection), position: Number(r.position), commit: String(r.commit_id), eventId: String(r.event_id), type: String(r.type),
      stream: String(r.stream_id), error: String(r.error), at: String(r.at),
    }));
  }

  get error(): Error | null { return this.lastError; }

  /** How many events a replay from the start reads (null when the event store cannot count them). */
  async eventsInLog(): Promise<number | null> {
    return this.source.countAfter ? this.source.countAfter(START, Number.MAX_SAFE_INTEGER) : null;
  }

  /** Empties each projection's tables and recorded failures, resets its checkpoint, replays from the start. */
  async rebuild(selected: readonly Projection[] = this.projections, onProgress?: (eventsDone: number) => void): Promise<void> {
    await this.ensureCheckpoints();
    this.waiters.forget(selected.map((p) => p.name));
    await this.db.knex.transaction(async (trx) => {
      for (const p of selected) {
        for (const table of p.tables) await trx(table).del();
      }
      // The replay records again whatever it still cannot take.
      await trx(FAILURES_TABLE).whereIn('projection', selected.map((p) => p.name)).del();
      await trx('projection_checkpoints').whereIn('name', selected.map((p) => p.name)).update({ commit_id: '0', position: 0, handled_position: 0, updated_at: new Date().toISOString() });
    });
    await this.replayLanes(selected, onProgress);
  }

  /** After a failed shared step, advance each projection alone so one broken read model does not hold back the others. */
  private async stepEachAlone(): Promise<void> {
    for (const p of this.projections) {
      try {
        await this.step([p]);
      } catch (error) {
        this.options.onError?.(error as Error, p.name);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.wake = null; resolve(); }, ms);
      this.wake = () => { clearTimeout(timer); this.wake = null; resolve(); };
    });
  }
}
