import { Principal } from '../../application/identity/principal';
import { VisibilityReader } from '../../application/identity/visibility';
import { ScheduleDefaults, TargetReads, TargetRow, TargetView, targetNotVisible } from '../../application/targets/ports';
import type { TargetKind } from '../../domain/shared/target-kind';
import { Database } from '../../infrastructure/db/database';
import { scopeToVisible } from '../identity/visibility';
import { TARGET_TABLE } from './tables';
import { targetView } from './target-view';

export interface Page<T> { items: T[]; next: number | null }

/**
 * Repositories and container images as a caller sees them (GET /repositories, /containers and their
 * ids, /repositories/duplicates), and what the target commands read (TargetReads). Unknown and
 * unseen answer 404 alike (spec 1 §7).
 */
export class TargetQueries implements TargetReads {
  constructor(private readonly db: Database, private readonly visibilities: VisibilityReader, private readonly defaults: ScheduleDefaults) {}

  async list(principal: Principal, kind: TargetKind, limit: number, after: number): Promise<Page<TargetView>> {
    const visibility = await this.visibilities.of(principal);
    const q = this.db.knex(TARGET_TABLE[kind]).where(`${TARGET_TABLE[kind]}.id`, '>', after).orderBy(`${TARGET_TABLE[kind]}.id`).limit(limit + 1);
    const rows: TargetRow[] = await scopeToVisible(visibility, q, kind);
    const defaultDays = await this.defaults.defaultIntervalDays();
    const items = rows.slice(0, limit).map((r) => targetView(kind, r, defaultDays));
    return { items, next: rows.length > limit ? items[items.length - 1].id : null };
  }

  async findVisible(principal: Principal, kind: TargetKind, id: number): Promise<TargetRow | null> {
    const row: TargetRow | undefined = await this.db.knex(TARGET_TABLE[kind]).where({ id }).first();
    const visibility = await this.visibilities.of(principal);
    return row && visibility.canSee(kind, row) ? row : null;
  }

  /** The row when the caller sees it; 404 alike for unknown and unseen. */
  async visibleRow(principal: Principal, kind: TargetKind, id: number): Promise<TargetRow> {
    const row = await this.findVisible(principal, kind, id);
    if (!row) throw targetNotVisible(kind, id);
    return row;
  }

  async get(principal: Principal, kind: TargetKind, id: number): Promise<TargetView> {
    const row = await this.visibleRow(principal, kind, id);
    return targetView(kind, row, await this.defaults.defaultIntervalDays());
  }

  /** GET /repositories/duplicates: groups sharing an identity, oldest first (administrators). */
  async duplicates() {
    const groups: { identity: string }[] = await this.db.knex('repositories').select('identity').groupBy('identity').havingRaw('count(*) > 1');
    const result = [];
    for (const g of groups) {
      const rows: TargetRow[] = await this.db.knex('repositories').where({ identity: g.identity }).orderBy([{ column: 'created_at' }, { column: 'id' }]);
      const defaultDays = await this.defaults.defaultIntervalDays();
      result.push({ identity: g.identity, repositories: rows.map((r) => targetView('repository', r, defaultDays)) });
    }
    return result.sort((a, b) => (a.repositories[0].createdAt < b.repositories[0].createdAt ? -1 : 1));
  }
}
