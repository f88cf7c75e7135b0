import type { TargetObservation } from '../../domain/gate/observation';
import type { TargetKind } from '../identity/visibility';
import { Database } from '../../infrastructure/db/database';
import { EventStore } from '../ports/event-store';

/**
 * What the gate needs to know of a target's scan history (spec 1 §7, S1.7-30..33): has any scan
 * completed, and how did the newest finished one end. Pending and running scans are not finished
 * and never count (S1.7-33). A port, because the scans context is built elsewhere.
 */
export interface ObservationSource {
  observe(targetKind: TargetKind, targetId: number): Promise<TargetObservation>;
}

/**
 * Interim stream of scan outcomes per target, read only while no `scans` read model exists:
 * `ScanCompleted` and `ScanFailed` events (any data) appended here count as finished scans, in
 * stream order. Specs and bench:gate write it; the scans context replaces it with its read model.
 */
export const scanOutcomeStream = (kind: TargetKind, id: number) => `scan-outcomes-${kind}-${id}`;

const FINISHED = ['completed', 'failed'] as const;

interface ScansLayout {
  /** How a scan names its target. */
  target: { kind: 'columns' } | { kind: 'per-kind'; repository: string | null; container: string | null };
  /** Orders finished scans newest first (after it, id descending). */
  finishedAt: string | null;
}

/**
 * Reads the `scans` read model when the database has one, otherwise the interim outcome stream
 * (so today, with no scans built, every target answers "never scanned" and the gate fails with the
 * observation violation first, as S1.7-30 wants). Whether `scans` exists is checked once, on first
 * use (after the start's migrations). Expected columns: `status` (pending, scanning, completed,
 * failed), the target as `target_kind` + `target_id` or as `repository_id` / `container_id`, and
 * optionally `finished_at` (else `completed_at`, `updated_at`) to order finished scans; ties and
 * the rest order by `id`. A `scans` table without a status or a target column is not trusted:
 * the adapter keeps to the stream, which fails closed.
 */
export class ScanObservationSource implements ObservationSource {
  private layout: Promise<ScansLayout | null> | null = null;

  constructor(private readonly db: Database, private readonly store: EventStore) {}

  async observe(targetKind: TargetKind, targetId: number): Promise<TargetObservation> {
    this.layout ??= this.readLayout();
    const layout = await this.layout;
    return layout ? this.fromScans(layout, targetKind, targetId) : this.fromStream(targetKind, targetId);
  }

  private async readLayout(): Promise<ScansLayout | null> {
    if (!(await this.db.knex.schema.hasTable('scans'))) return null;
    const columns = new Set(Object.keys(await this.db.knex('scans').columnInfo()));
    if (!columns.has('status') || !columns.has('id')) return null;
    const finishedAt = ['finished_at', 'completed_at', 'updated_at'].find((c) => columns.has(c)) ?? null;
    if (columns.has('target_kind') && columns.has('target_id')) return { target: { kind: 'columns' }, finishedAt };
    const repository = columns.has('repository_id') ? 'repository_id' : null;
    const container = columns.has('container_id') ? 'container_id' : null;
    if (!repository && !container) return null;
    return { target: { kind: 'per-kind', repository, container }, finishedAt };
  }

  private async fromScans(layout: ScansLayout, targetKind: TargetKind, targetId: number): Promise<TargetObservation> {
    const scans = () => {
      const q = this.db.knex('scans');
      if (layout.target.kind === 'columns') return q.where({ target_kind: targetKind, target_id: targetId });
      const column = targetKind === 'repository' ? layout.target.repository : layout.target.container;
      return column ? q.where(column, targetId) : q.whereRaw('1 = 0');
    };
    const order = [...(layout.finishedAt ? [{ column: layout.finishedAt, order: 'desc' as const }] : []), { column: 'id', order: 'desc' as const }];
    const [newest, completed] = await Promise.all([
      scans().whereIn('status', [...FINISHED]).orderBy(order).select('status').first(),
      scans().where('status', 'completed').select('id').first(),
    ]);
    return {
      anyScanCompleted: Boolean(completed),
      newestFinishedScanStatus: newest ? (newest.status as TargetObservation['newestFinishedScanStatus']) : null,
    };
  }

  private async fromStream(targetKind: TargetKind, targetId: number): Promise<TargetObservation> {
    const events = await this.store.readStream(scanOutcomeStream(targetKind, targetId));
    let anyScanCompleted = false;
    let newest: TargetObservation['newestFinishedScanStatus'] = null;
    for (const e of events) {
      if (e.type === 'ScanCompleted') { anyScanCompleted = true; newest = 'completed'; }
      else if (e.type === 'ScanFailed') newest = 'failed';
    }
    return { anyScanCompleted, newestFinishedScanStatus: newest };
  }
}
