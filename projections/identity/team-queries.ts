import { GrantKind } from '../../domain/identity/team';
import { refuse } from '../../domain/shared/decider';
import { Database } from '../../infrastructure/db/database';

interface TeamRow { id: number; name: string; created_at: string }
interface MemberRow { team_id: number; account_id: number }
interface GrantRow { team_id: number; kind: GrantKind; target_id: number }

function teamView(team: TeamRow, members: MemberRow[], grants: GrantRow[]) {
  return {
    id: Number(team.id), name: team.name, createdAt: team.created_at,
    members: members.map((m) => Number(m.account_id)),
    grants: grants.map((g) => ({ kind: g.kind, id: Number(g.target_id) })),
  };
}

/** The `teams`, `team_members` and `team_grants` read models: each team with its members and grants. */
export class TeamQueries {
  constructor(private readonly db: Database) {}

  async list() {
    const teams: TeamRow[] = await this.db.knex('teams').orderBy('id');
    const members: MemberRow[] = await this.db.knex('team_members').orderBy(['team_id', 'account_id']);
    const grants: GrantRow[] = await this.db.knex('team_grants').orderBy(['team_id', 'kind', 'target_id']);
    const of = <R extends { team_id: number }>(rows: R[], id: number) => rows.filter((r) => Number(r.team_id) === Number(id));
    return teams.map((t) => teamView(t, of(members, t.id), of(grants, t.id)));
  }

  /** Up to `limit` + 1 teams after the id `after`, with their members and grants. */
  async page(limit: number, after: number) {
    const teams: TeamRow[] = await this.db.knex('teams').where('id', '>', after).orderBy('id').limit(limit + 1);
    const ids = teams.map((t) => t.id);
    const members: MemberRow[] = ids.length ? await this.db.knex('team_members').whereIn('team_id', ids).orderBy(['team_id', 'account_id']) : [];
    const grants: GrantRow[] = ids.length ? await this.db.knex('team_grants').whereIn('team_id', ids).orderBy(['team_id', 'kind', 'target_id']) : [];
    const of = <R extends { team_id: number }>(rows: R[], id: number) => rows.filter((r) => Number(r.team_id) === Number(id));
    return teams.map((t) => teamView(t, of(members, t.id), of(grants, t.id)));
  }

  async get(id: number) {
    const team: TeamRow | undefined = await this.db.knex('teams').where({ id }).first();
    if (!team) throw refuse.notFound('No such team.');
    const members: MemberRow[] = await this.db.knex('team_members').where({ team_id: id }).orderBy('account_id');
    const grants: GrantRow[] = await this.db.knex('team_grants').where({ team_id: id }).orderBy(['kind', 'target_id']);
    return teamView(team, members, grants);
  }
}
