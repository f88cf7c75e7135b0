import { Knex } from 'knex';
import { Visibility } from '../../application/identity/visibility';
import type { ScanTarget } from '../../application/ports/scanning';
import type { TargetLookup } from '../../application/scans/ports';
import type { TargetKind } from '../../domain/shared/target-kind';
import type { SchedulingCandidate } from '../../domain/targets';
import { Database } from '../../infrastructure/db/database';
import { scopeToVisible } from '../identity/visibility';
import { TARGET_TABLE } from './tables';

interface ScheduleRow {
  kind: TargetKind;
  id: number;
  scan_manual_only: boolean | number;
  scan_interval_minutes: number | null;
  scan_cron: string | null;
  created_at: string;
  last_scheduled_scan_at: string | null;
}

/**
 * What the scans context reads of the targets read model (`repositories`, `containers`), in one place:
 * the TargetLookup port of application/scans, the schedule columns for the scheduler, and the two
 * sub-queries the scans queries put inside their own statements (visible targets, repositories naming
 * a credential), so that a claim or a page of scans stays one statement.
 */
export class ScanTargetLookup implements TargetLookup {
  constructor(private readonly db: Database) {}

  async visibilityRow(kind: TargetKind, id: number): Promise<{ id: number; projectId: number | null } | null> {
    const row: { id: number; project_id: number | null } | undefined = await this.db.knex(TARGET_TABLE[kind]).where({ id }).select('id', 'project_id').first();
    return row ? { id: Number(row.id), projectId: row.project_id === null ? null : Number(row.project_id) } : null;
  }

  async scanTarget(kind: TargetKind, id: number): Promise<ScanTarget | null> {
    if (kind === 'repository') {
      const row = await this.db.knex('repositories').where({ id }).select('url', 'branch', 'sub_path').first();
      return row ? { kind, id, url: row.url, branch: row.branch, subPath: row.sub_path } : null;
    }
    const row = await this.db.knex('containers').where({ id }).select('image').first();
    return row ? { kind, id, image: row.image } : null;
  }

  async scanTargets(refs: ReadonlyArray<{ kind: TargetKind; id: number }>): Promise<Map<string, ScanTarget>> {
    const found = new Map<string, ScanTarget>();
    const repos = refs.filter((r) => r.kind === 'repository').map((r) => r.id);
    const images = refs.filter((r) => r.kind === 'container').map((r) => r.id);
    if (repos.length) {
      const rows: Array<{ id: number; url: string; branch: string; sub_path: string }> = await this.db.knex('repositories').whereIn('id', repos).select('id', 'url', 'branch', 'sub_path');
      for (const row of rows) found.set(`repository:${Number(row.id)}`, { kind: 'repository', id: Number(row.id), url: row.url, branch: row.branch, subPath: row.sub_path });
    }
    if (images.length) {
      const rows: Array<{ id: number; image: string }> = await this.db.knex('containers').whereIn('id', images).select('id', 'image');
      for (const row of rows) found.set(`container:${Number(row.id)}`, { kind: 'container', id: Number(row.id), image: row.image });
    }
    return found;
  }

  async credentialed(repositoryIds: readonly number[]): Promise<ReadonlySet<number>> {
    if (repositoryIds.length === 0) return new Set();
    const rows: Array<{ id: number }> = await this.db.knex('repositories').whereIn('id', [...repositoryIds]).whereNotNull('credential_id').select('id');
    return new Set(rows.map((r) => Number(r.id)));
  }

  /** Every target that is not manual-only, both kinds, in one query. */
  async schedulable(): Promise<SchedulingCandidate[]> {
    const knex = this.db.knex;
    const columns = ['id', 'scan_manual_only', 'scan_interval_minutes', 'scan_cron', 'created_at', 'last_scheduled_scan_at'];
    const rows: ScheduleRow[] = await knex.select(knex.raw("'repository' as kind"), ...columns).from('repositories').where('scan_manual_only', false)
      .unionAll((u) => { u.select(knex.raw("'container' as kind"), ...columns).from('containers').where('scan_manual_only', false); }, true);
    return rows.map((r) => ({
      kind: r.kind, id: Number(r.id), scanManualOnly: Boolean(r.scan_manual_only),
      scanIntervalMinutes: r.scan_interval_minutes === null ? null : Number(r.scan_interval_minutes), scanCron: r.scan_cron,
      registeredAt: r.created_at, lastScheduledScanAt: r.last_scheduled_scan_at,
    }));
  }

  /** Sub-query: the ids of the targets of one kind the caller sees. */
  visibleIds(visibility: Visibility, kind: TargetKind): Knex.QueryBuilder {
    const table = TARGET_TABLE[kind];
    return scopeToVisible(visibility, this.db.knex(table).select(`${table}.id`), kind);
  }

  /**
   * Correlated sub-query: the repository of the scan aliased `scanAlias` names a stored credential (a
   * repository that came to name one after its scan was requested needs one all the same).
   */
  namingCredential(scanAlias: string): Knex.QueryBuilder {
    const knex = this.db.knex;
    return knex('repositories as c').select(knex.raw('1')).whereRaw(`${scanAlias}.target_kind = 'repository' AND c.id = ${scanAlias}.target_id`).whereNotNull('c.credential_id');
  }

  /**
   * Correlated sub-query: the target of the scan aliased `scanAlias` requires something the executor
   * does not carry (target_requirements, v029): pinned to another agent (S1.2.1-20), or a label it
   * does not answer to. An executor carries `agent:<its id>` (agents only) and `label:<l>` per label.
   */
  requirementUnmet(scanAlias: string, executor: { agentId: number | null; labels: readonly string[] }): Knex.QueryBuilder {
    const knex = this.db.knex;
    const carried = [...(executor.agentId !== null ? [`agent:${executor.agentId}`] : []), ...executor.labels.map((l) => `label:${l}`)];
    const q = knex('target_requirements as q').select(knex.raw('1')).whereRaw(`q.target_kind = ${scanAlias}.target_kind AND q.target_id = ${scanAlias}.target_id`);
    return carried.length ? q.whereNotIn('q.requirement', carried) : q;
  }
}
