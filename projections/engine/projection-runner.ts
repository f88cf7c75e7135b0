import { Knex } from 'knex';
import { compareCursors, Cursor, EventStore, RecordedEvent, START } from '../../application/ports/event-store';
import { Database } from '../../infrastructure/db/database';
import { handledBy, Projection } from './projection';

export interface ProjectionStatus {
  name: string;
  position: number;
  lagEvents: number;
}

/** Where events come from: the SQL store reads inside the projection's transaction. */
export interface EventSource {
  readAll(after: Cursor, limit: number, context?: Knex.Transaction): Promise<RecordedEvent[]>;
  countAfter?(after: Cursor, bound?: number): Promise<number>;
}

interface CheckpointRow { name: string; commit_id: string; position: number | string }

/**
 * Runs projections from the event log into the read database (ADR 0003): catch-up, then live.
 * Each batch: lock the projection's checkpoint row (SKIP LOCKED, so a second instance leaves it
 * to whoever holds it), read the events after it, apply, move the checkpoint, commit.
 * Read-your-writes waits on the checkpoint rows in the database, not on an in-process signal,
 * so it holds with several instances.
 */
export class ProjectionRunner {
  private running = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private lastError: Error | null = null;

  constructor(
    private readonly db: Database,
    private readonly source: EventSource,
    readonly projections: readonly Projection[],
    private readonly options: { batchSize?: number; idleMs?: number; sourceIsDatabase?: boolean; onError?: (e: Error, p: string) => void } = {},
  ) {}

  get batchSize(): number { return this.options.batchSize ?? 1000; }

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

  /** Processes one batch of one projection. Returns how many events it read (0 = caught up or busy elsewhere). */
  async step(projection: Projection): Promise<number> {
    return this.db.knex.transaction(async (trx) => {
      const lock = this.db.engine === 'pglite' ? '' : ' FOR UPDATE SKIP LOCKED';
      const rows: CheckpointRow[] = await trx.raw(`SELECT name, commit_id, position FROM projection_checkpoints WHERE name = ?${lock}`, [projection.name])
        .then((r: unknown) => (this.db.engine === 'mysql' ? (r as [CheckpointRow[]])[0] : (r as { rows: CheckpointRow[] }).rows));
      if (rows.length === 0) return 0;
      const from: Cursor = { commit: String(rows[0].commit_id), position: Number(rows[0].position) };
      const events = await this.source.readAll(from, this.batchSize, this.options.sourceIsDatabase === false ? undefined : trx);
      if (events.length === 0) return 0;
      const mine = events.filter((e) => handledBy(projection, e.type));
      if (mine.length > 0) await projection.apply(trx, mine, this.db);
      const last = events[events.length - 1].cursor;
      await trx('projection_checkpoints').where({ name: projection.name })
        .update({ commit_id: last.commit, position: last.position, updated_at: new Date().toISOString() });
      return events.length;
    });
  }

  /** Runs every projection until none has anything left (catch-up). */
  async catchUp(): Promise<void> {
    for (const p of this.projections) {
      while ((await this.step(p)) === this.batchSize) { /* full batch: more may follow */ }
    }
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = (async () => {
      while (this.running) {
        let busy = false;
        for (const p of this.projections) {
          try {
            const n = await this.step(p);
            if (n === this.batchSize) busy = true;
          } catch (error) {
            this.lastError = error as Error;
            this.options.onError?.(error as Error, p.name);
          }
        }
        if (!busy && this.running) await this.sleep(this.options.idleMs ?? 250);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  /** Nudges the live loop: a command just appended. */
  nudge(): void {
    this.wake?.();
  }

  /**
   * Read-your-writes (trap 3): resolves once every projection that reads one of `types` has a
   * checkpoint at or past `cursor`; false when `timeoutMs` passed first.
   */
  async waitFor(cursor: Cursor, types: readonly string[], timeoutMs: number): Promise<boolean> {
    const names = this.projections.filter((p) => types.some((t) => handledBy(p, t))).map((p) => p.name);
    if (names.length === 0) return true;
    const deadline = Date.now() + timeoutMs;
    let delay = 2;
    for (;;) {
      if (!this.running) await this.catchUp();
      else this.nudge();
      const rows: CheckpointRow[] = await this.db.knex('projection_checkpoints').select('name', 'commit_id', 'position').whereIn('name', names);
      const done = rows.length === names.length && rows.every((r) => compareCursors({ commit: String(r.commit_id), position: Number(r.position) }, cursor) >= 0);
      if (done) return true;
      if (Date.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 50);
    }
  }

  async status(): Promise<ProjectionStatus[]> {
    const rows: CheckpointRow[] = await this.db.knex('projection_checkpoints').select('name', 'commit_id', 'position');
    const byName = new Map(rows.map((r) => [r.name, r]));
    const result: ProjectionStatus[] = [];
    for (const p of this.projections) {
      const row = byName.get(p.name);
      const cursor = row ? { commit: String(row.commit_id), position: Number(row.position) } : START;
      const lag = this.source.countAfter ? await this.source.countAfter(cursor, 1_000_000) : 0;
      result.push({ name: p.name, position: cursor.position, lagEvents: lag });
    }
    return result;
  }

  get error(): Error | null { return this.lastError; }

  /** Empties each projection's tables, resets its checkpoint, replays from the start. */
  async rebuild(selected: readonly Projection[] = this.projections): Promise<void> {
    await this.ensureCheckpoints();
    for (const p of selected) {
      await this.db.knex.transaction(async (trx) => {
        for (const table of p.tables) await trx(table).del();
        await trx('projection_checkpoints').where({ name: p.name }).update({ commit_id: '0', position: 0, updated_at: new Date().toISOString() });
      });
    }
    for (const p of selected) {
      while ((await this.step(p)) === this.batchSize) { /* replaying */ }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.wake = null; resolve(); }, ms);
      this.wake = () => { clearTimeout(timer); this.wake = null; resolve(); };
    });
  }
}
