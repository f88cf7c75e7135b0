import { Principal } from '../../application/identity/principal';
import { VisibilityReader } from '../../application/identity/visibility';
import type { ScanTrigger } from '../../domain/scans/scan';
import { refuse } from '../../domain/shared/decider';
import type { TargetKind } from '../../domain/shared/target-kind';
import { Database } from '../../infrastructure/db/database';
import { ScanTargetLookup } from '../targets/scan-target-lookup';

export interface ScanRow {
  id: number; target_kind: TargetKind; target_id: number; trigger: ScanTrigger; status: string; error: string | null; error_kind: string | null;
  last_error: string | null; attempts: number; requires_credential: boolean | number; requested_by: number | null; requested_at: string;
  not_before: string; started_at: string | null; finished_at: string | null; worker: string | null; languages: string | null;
  duration: string | null; steps: string | null; created_count: number | null; resolved_count: number | null; reopened_count: number | null; updated_at: string;
}

export interface ScanListFilter {
  repositoryId?: number;
  containerId?: number;
  limit: number;
  /** Scans older than this id (the Link rel="next" cursor; the list is newest first). */
  before?: number;
}

export type ScanView = ReturnType<typeof toView>;

/**
 * The scans read model answering GET /scans and GET /scans/{id} (spec 1 §2.2, §4.1): rows of `scans`
 * (projections/scans/projection.ts), with the live lease of a running scan read from `scan_leases`,
 * the scans context's own operational table (ADR 0006: heartbeats move it, never an event), and the
 * targets the caller sees through the targets read model's lookup.
 */
export class ScanQueries {
  constructor(private readonly db: Database, private readonly visibilities: VisibilityReader, private readonly targets: ScanTargetLookup) {}

  /** GET /scans/{id}: `{scan: {...}}` (CONVENTIONS); 404 alike for unknown and unseen. */
  async get(principal: Principal, id: number): Promise<{ scan: ScanView }> {
    const row = await this.db.knex('scans').where({ id }).first() as ScanRow | undefined;
    if (!row || !(await this.canSee(principal, row))) throw refuse.notFound(`No scan ${id} is visible to you.`);
    return { scan: await this.view(row) };
  }

  /** GET /scans: newest first, only scans of targets the caller sees. */
  async list(principal: Principal, filter: ScanListFilter): Promise<{ items: ScanView[]; next: number | null }> {
    const knex = this.db.knex;
    const visibility = await this.visibilities.of(principal);
    const q = knex('scans').orderBy('scans.id', 'desc').limit(filter.limit + 1).select('scans.*');
    if (filter.repositoryId !== undefined) q.where({ 'scans.target_kind': 'repository', 'scans.target_id': filter.repositoryId });
    if (filter.containerId !== undefined) q.where({ 'scans.target_kind': 'container', 'scans.target_id': filter.containerId });
    if (filter.before !== undefined) q.where('scans.id', '<', filter.before);
    if (!visibility.all || visibility.restriction) {
      q.where((w) => {
        w.where((r) => { r.where('scans.target_kind', 'repository').whereIn('scans.target_id', this.targets.visibleIds(visibility, 'repository')); })
          .orWhere((c) => { c.where('scans.target_kind', 'container').whereIn('scans.target_id', this.targets.visibleIds(visibility, 'container')); });
      });
    }
    const rows: ScanRow[] = await q;
    const page = rows.slice(0, filter.limit);
    const leases = await this.leaseExpiries(page.filter((r) => r.status === 'scanning').map((r) => Number(r.id)));
    const items = page.map((r) => toView(r, leases.get(`${Number(r.id)}:${Number(r.attempts)}`) ?? null));
    return { items, next: rows.length > filter.limit ? items[items.length - 1].id : null };
  }

  /** A scan just requested, as POST .../scan answers it (the request has waited for this read model). */
  async requested(id: number): Promise<ScanView> {
    return this.view(await this.row(id));
  }

  /** The newest scans of a target (for other contexts), newest first. */
  async ofTarget(kind: TargetKind, id: number, limit = 20): Promise<ScanRow[]> {
    return this.db.knex('scans').where({ target_kind: kind, target_id: id }).orderBy('id', 'desc').limit(limit);
  }

  async row(id: number): Promise<ScanRow> {
    const row = await this.db.knex('scans').where({ id }).first() as ScanRow | undefined;
    if (!row) throw new Error(`scan ${id} is not in the read model`);
    return row;
  }

  private async view(row: ScanRow): Promise<ScanView> {
    const lease = row.status === 'scanning'
      ? await this.db.knex('scan_leases').where({ scan_id: Number(row.id), attempt: Number(row.attempts) }).first('lease_expires_at') as { lease_expires_at: string } | undefined
      : undefined;
    return toView(row, lease?.lease_expires_at ?? null);
  }

  /** Live lease expiries of these scans, keyed `scanId:attempt`. */
  private async leaseExpiries(scanIds: readonly number[]): Promise<Map<string, string>> {
    if (scanIds.length === 0) return new Map();
    const rows: Array<{ scan_id: number; attempt: number; lease_expires_at: string }> = await this.db.knex('scan_leases').whereIn('scan_id', [...scanIds]);
    return new Map(rows.map((r) => [`${Number(r.scan_id)}:${Number(r.attempt)}`, r.lease_expires_at]));
  }

  private async canSee(principal: Principal, row: ScanRow): Promise<boolean> {
    const visibility = await this.visibilities.of(principal);
    const kind = row.target_kind;
    const target = await this.targets.visibilityRow(kind, Number(row.target_id));
    if (!target) return visibility.all && (!visibility.restriction || (visibility.restriction.kind === kind && visibility.restriction.id === Number(row.target_id)));
    return visibility.canSee(kind, target);
  }
}

function toView(row: ScanRow, leaseExpiresAt: string | null) {
  const kind = row.target_kind;
  const targetId = Number(row.target_id);
  const num = (v: number | null) => (v === null ? null : Number(v));
  return {
    id: Number(row.id), targetKind: kind, targetId, repositoryId: kind === 'repository' ? targetId : null, containerId: kind === 'container' ? targetId : null,
    status: row.status, error: row.status === 'failed' ? row.error : null, errorKind: row.status === 'failed' ? row.error_kind : null,
    attempts: Number(row.attempts), trigger: row.trigger, requestedAt: row.requested_at, notBefore: row.status === 'pending' ? row.not_before : null,
    startedAt: row.started_at, finishedAt: row.finished_at, worker: row.worker, leaseExpiresAt: row.status === 'scanning' ? leaseExpiresAt : null,
    lastError: row.last_error, requiresCredential: Boolean(row.requires_credential),
    detectedLanguages: row.languages === null ? null : JSON.parse(row.languages) as string[], duration: row.duration,
    steps: row.steps === null ? null : JSON.parse(row.steps) as Record<string, unknown>,
    createdCount: num(row.created_count), resolvedCount: num(row.resolved_count), reopenedCount: num(row.reopened_count),
  };
}
