import { Database } from '../../infrastructure/db/database';
import { Principal } from './principal';
import type { TargetKind } from '../../domain/shared/target-kind';


/** The read-model table of each kind of target. */
export const TARGET_TABLE = { repository: 'repositories', container: 'containers' } as const satisfies Record<TargetKind, string>;


/**
 * What a caller sees (spec 1 §2.4, issue 2): administrators everything; others what their teams
 * are granted (a project brings its targets, a grant may also name one target). A key restricted
 * to one target sees that target only, and only if its account sees it too: a restriction
 * narrows, never widens.
 */
export class Visibility {
  constructor(
    readonly all: boolean,
    readonly projectIds: ReadonlySet<number>,
    readonly repositoryIds: ReadonlySet<number>,
    readonly containerIds: ReadonlySet<number>,
    readonly restriction: Principal['restriction'],
  ) {}

  canSee(kind: TargetKind, target: { id: number; project_id?: number | null; projectId?: number | null }): boolean {
    if (this.restriction && (this.restriction.kind !== kind || this.restriction.id !== target.id)) return false;
    if (this.all) return true;
    const projectId = target.project_id ?? target.projectId ?? null;
    if (projectId !== null && this.projectIds.has(projectId)) return true;
    return (kind === 'repository' ? this.repositoryIds : this.containerIds).has(target.id);
  }

  canSeeProject(projectId: number): boolean {
    return this.all || this.projectIds.has(projectId);
  }

  /** Narrows a knex query on repositories or containers to what the caller sees. */
  scope<Q extends { where: Function; whereIn: Function; orWhereIn: Function; whereRaw: Function }>(query: Q, kind: TargetKind, alias = kind === 'repository' ? 'repositories' : 'containers'): Q {
    if (this.restriction) {
      if (this.restriction.kind !== kind) return query.whereRaw('1 = 0') as Q;
      query = query.where(`${alias}.id`, this.restriction.id) as Q;
    }
    if (this.all) return query;
    const ids = [...(kind === 'repository' ? this.repositoryIds : this.containerIds)];
    const projects = [...this.projectIds];
    return query.where((q: { whereIn: Function; orWhereIn: Function }) => {
      q.whereIn(`${alias}.project_id`, projects.length ? projects : [-1]).orWhereIn(`${alias}.id`, ids.length ? ids : [-1]);
    }) as Q;
  }

  static async of(db: Database, principal: Principal): Promise<Visibility> {
    if (principal.roles.includes('administrator')) return new Visibility(true, new Set(), new Set(), new Set(), principal.restriction);
    const grants: { kind: string; target_id: number }[] = await db.knex('team_grants')
      .join('team_members', 'team_members.team_id', 'team_grants.team_id')
      .where('team_members.account_id', principal.accountId)
      .select('team_grants.kind', 'team_grants.target_id');
    const pick = (kind: string) => new Set(grants.filter((g) => g.kind === kind).map((g) => Number(g.target_id)));
    return new Visibility(false, pick('project'), pick('repository'), pick('container'), principal.restriction);
  }
}
