import { Principal } from '../../application/identity/principal';
import { Visibility, VisibilityReader } from '../../application/identity/visibility';
import type { TargetKind } from '../../domain/shared/target-kind';
import { Database } from '../../infrastructure/db/database';

/** What a caller sees, read from the teams' grants (projections/identity owns team_grants and team_members). */
export class SqlVisibility implements VisibilityReader {
  constructor(private readonly db: Database) {}

  async of(principal: Principal): Promise<Visibility> {
    if (principal.roles.includes('administrator')) return new Visibility(true, new Set(), new Set(), new Set(), principal.restriction);
    const grants: { kind: string; target_id: number }[] = await this.db.knex('team_grants')
      .join('team_members', 'team_members.team_id', 'team_grants.team_id')
      .where('team_members.account_id', principal.accountId)
      .select('team_grants.kind', 'team_grants.target_id');
    const pick = (kind: string) => new Set(grants.filter((g) => g.kind === kind).map((g) => Number(g.target_id)));
    return new Visibility(false, pick('project'), pick('repository'), pick('container'), principal.restriction);
  }
}

/** Narrows a knex query on repositories or containers to what the caller sees. */
export function scopeToVisible<Q extends { where: Function; whereIn: Function; orWhereIn: Function; whereRaw: Function }>(
  visibility: Visibility, query: Q, kind: TargetKind, alias = kind === 'repository' ? 'repositories' : 'containers',
): Q {
  if (visibility.restriction) {
    if (visibility.restriction.kind !== kind) return query.whereRaw('1 = 0') as Q;
    query = query.where(`${alias}.id`, visibility.restriction.id) as Q;
  }
  if (visibility.all) return query;
  const ids = [...(kind === 'repository' ? visibility.repositoryIds : visibility.containerIds)];
  const projects = [...visibility.projectIds];
  return query.where((q: { whereIn: Function; orWhereIn: Function }) => {
    q.whereIn(`${alias}.project_id`, projects.length ? projects : [-1]).orWhereIn(`${alias}.id`, ids.length ? ids : [-1]);
  }) as Q;
}
