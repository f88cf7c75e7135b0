import type { Knex } from 'knex';
import type { DeliveryStatus, Outbox, QueuedSignal, StoredSiemConfig } from '../../application/siem/ports';
import type { AccountNames } from '../../application/siem/siem-service';
import { Database } from '../../infrastructure/db/database';
import type { MinimumSeverity, Signature } from '../../domain/siem/signatures';
import type { SiemProtocol } from '../../domain/siem/endpoint';

interface OutboxRow {
  event_id: string; position: number | string; generation: number; signature: string; severity: number; outcome: string; act: string;
  actor: number | null; address: string | null; user_agent: string | null; target: string | null; identifier: string | null; component: string | null;
  msg: string | null; at: string; attempts: number | null; username: string | null;
}

/**
 * The outbox as the deliverer sees it: the queued rows of the siem projection (`siem_outbox`,
 * `siem_config`) and the deliverer's own state per row (`siem_deliveries`, written only here).
 * suser is the account's user name, read when the row leaves.
 */
export class SqlOutbox implements Outbox, AccountNames {
  constructor(private readonly db: Database) {}

  async config(): Promise<StoredSiemConfig | null> {
    const r = await this.db.knex('siem_config').where({ id: 1 }).first();
    if (!r) return null;
    return {
      enabled: Boolean(r.enabled), protocol: r.protocol as SiemProtocol, endpoint: r.endpoint, authorizationSet: Boolean(r.authorization_set),
      tlsCaPem: r.tls_ca_pem ?? null, minimumSeverity: r.minimum_severity as MinimumSeverity, generation: Number(r.generation), updatedAt: r.updated_at,
    };
  }

  private base(): Knex.QueryBuilder {
    return this.db.knex('siem_outbox as o')
      .leftJoin('siem_deliveries as d', 'd.event_id', 'o.event_id')
      .leftJoin('accounts as a', 'a.id', 'o.actor')
      .select('o.*', 'd.attempts', 'a.username');
  }

  async retriesDue(now: Date, limit: number): Promise<QueuedSignal[]> {
    const rows: OutboxRow[] = await this.base().where('d.status', 'retrying').where('d.next_attempt_at', '<=', now.toISOString()).orderBy('o.position').limit(limit);
    return rows.map(signalOf);
  }

  /**
   * Rows after the watermark by position, then which of them were tried already (by primary key):
   * each batch costs its own rows, however many were delivered before (an anti-join grew with the
   * deliveries table). The turn starts again from 0 (a late commit can queue a row below a watermark).
   */
  /**
   * The position just below the lowest row never tried: one anti-join over the outbox and the
   * deliveries (a full turn's start, once per VIGIL_SIEM_INTERVAL), instead of reading every
   * delivered row again batch by batch from position 0.
   */
  async untriedFloor(): Promise<number> {
    const r = await this.db.knex('siem_outbox as o').leftJoin('siem_deliveries as d', 'd.event_id', 'o.event_id').whereNull('d.event_id').min({ p: 'o.position' }).first();
    const lowest = (r as { p: number | string | null } | undefined)?.p;
    if (lowest !== null && lowest !== undefined) return Number(lowest) - 1;
    // Everything was tried: nothing below the newest row is left.
    const newest = await this.db.knex('siem_outbox').max({ p: 'position' }).first();
    return Number((newest as { p: number | string | null } | undefined)?.p ?? 0);
  }

  async fresh(afterPosition: number, limit: number): Promise<{ rows: QueuedSignal[]; scannedTo: number | null }> {
    // One statement: the batch by position (a subquery, so the limit applies to the outbox alone),
    // then each row's delivery looked up by primary key.
    const batch = this.db.knex('siem_outbox').where('position', '>', afterPosition).orderBy('position').limit(limit).select('*').as('o');
    const rows: Array<OutboxRow & { tried: string | null }> = await this.db.knex.from(batch)
      .leftJoin('accounts as a', 'a.id', 'o.actor').leftJoin('siem_deliveries as d', 'd.event_id', 'o.event_id')
      .select('o.*', 'a.username', 'd.event_id as tried').orderBy('o.position');
    if (rows.length === 0) return { rows: [], scannedTo: null };
    return { rows: rows.filter((r) => r.tried === null).map((r) => signalOf({ ...r, attempts: 0 })), scannedTo: Number(rows[rows.length - 1].position) };
  }

  async mark(rows: ReadonlyArray<{ externalId: string; attempts: number }>, status: DeliveryStatus, now: Date, details: { nextAttemptAt?: Date | null; error?: string | null; destination?: string | null } = {}): Promise<void> {
    if (rows.length === 0) return;
    const at = now.toISOString();
    const shared = { status, next_attempt_at: details.nextAttemptAt?.toISOString() ?? null, last_error: details.error ?? null, destination: details.destination ?? null, updated_at: at };
    if (this.db.isPostgres) {
      // One statement of seven parameters per batch: the ids and attempts as two separated texts
      // (event ids are UUIDs, without commas), the rest shared by the batch. The statement with
      // seven parameters a row cost more than the sending itself (bench:siem, docs/BENCHMARKS.md).
      for (let i = 0; i < rows.length; i += 10_000) {
        const part = rows.slice(i, i + 10_000);
        await this.db.knex.raw(
          `INSERT INTO siem_deliveries (event_id, status, attempts, next_attempt_at, last_error, destination, updated_at)
           SELECT u.e, ?, u.a::integer, ?, ?, ?, ? FROM unnest(string_to_array(?, ','), string_to_array(?, ',')) AS u(e, a)
           ON CONFLICT (event_id) DO UPDATE SET status = excluded.status, attempts = excluded.attempts, next_attempt_at = excluded.next_attempt_at,
             last_error = excluded.last_error, destination = excluded.destination, updated_at = excluded.updated_at`,
          [shared.status, shared.next_attempt_at, shared.last_error, shared.destination, shared.updated_at, part.map((r) => r.externalId).join(','), part.map((r) => r.attempts).join(',')],
        );
      }
      return;
    }
    const values = rows.map((r) => ({ event_id: r.externalId, attempts: r.attempts, ...shared }));
    // 7 parameters a row: 2,000 rows stay far below the 65,535 parameters of a statement.
    for (let i = 0; i < values.length; i += 2000) {
      await this.db.knex('siem_deliveries').insert(values.slice(i, i + 2000)).onConflict('event_id').merge();
    }
  }

  async usernameOf(id: number | null): Promise<string | null> {
    if (id === null) return null;
    const r = await this.db.knex('accounts').where({ id }).first('username');
    return r?.username ?? null;
  }

  /**
   * The outbox depth for GET /metrics: rows never tried (`pending`), waiting for another attempt
   * (`retrying`) and given up (`failed`). Delivered and abandoned rows are not queued.
   */
  async depth(): Promise<Record<'pending' | 'retrying' | 'failed', number>> {
    const pending = await this.db.knex('siem_outbox as o').leftJoin('siem_deliveries as d', 'd.event_id', 'o.event_id').whereNull('d.event_id').count({ n: '*' }).first();
    const byStatus: Array<{ status: string; n: number | string }> = await this.db.knex('siem_deliveries').whereIn('status', ['retrying', 'failed']).groupBy('status').select('status').count({ n: '*' });
    const of = (status: string) => Number(byStatus.find((r) => r.status === status)?.n ?? 0);
    return { pending: Number((pending as { n: number | string } | undefined)?.n ?? 0), retrying: of('retrying'), failed: of('failed') };
  }

  /** GET /siem/outbox: queued rows with their delivery state, newest first; `status` pending = never tried. */
  async list(filter: { status?: DeliveryStatus | 'pending'; before?: number }, limit: number) {
    const q = this.db.knex('siem_outbox as o').leftJoin('siem_deliveries as d', 'd.event_id', 'o.event_id')
      .select('o.event_id', 'o.position', 'o.signature', 'o.severity', 'o.act', 'o.target', 'o.at', 'd.status', 'd.attempts', 'd.next_attempt_at', 'd.last_error', 'd.destination', 'd.updated_at')
      .orderBy('o.position', 'desc').limit(limit + 1);
    if (filter.status === 'pending') q.whereNull('d.event_id');
    else if (filter.status) q.where('d.status', filter.status);
    if (filter.before !== undefined) q.where('o.position', '<', filter.before);
    const rows = await q;
    const items = rows.slice(0, limit).map((r: any) => ({
      externalId: r.event_id, position: Number(r.position), signature: r.signature, severity: Number(r.severity), act: r.act, target: r.target, at: r.at,
      status: r.status ?? 'pending', attempts: Number(r.attempts ?? 0), nextAttemptAt: r.next_attempt_at ?? null, lastError: r.last_error ?? null,
      destination: r.destination ?? null, updatedAt: r.updated_at ?? null,
    }));
    return { items, next: rows.length > limit ? items[items.length - 1].position : null };
  }
}

function signalOf(r: OutboxRow): QueuedSignal {
  return {
    signature: r.signature as Signature, severity: Number(r.severity), outcome: r.outcome as QueuedSignal['outcome'], act: r.act, rt: Date.parse(r.at),
    suser: r.username ?? (r.actor === null ? null : `account:${r.actor}`), src: r.address, userAgent: r.user_agent, target: r.target,
    identifier: r.identifier, component: r.component, externalId: r.event_id, msg: r.msg, generation: Number(r.generation), attempts: Number(r.attempts ?? 0),
  };
}
