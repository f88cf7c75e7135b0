import { GrantKind, teamDecider } from '../../domain/identity/team';
import { refuse } from '../../domain/shared/decider';
import { Database } from '../../infrastructure/db/database';
import { CommandHandler, RequestContext } from '../command-handler';
import { IdGenerator } from '../ports/ids';
import { streams } from '../../domain/shared/streams';

const GRANT_TABLE: Record<GrantKind, string> = { project: 'projects', repository: 'repositories', container: 'containers' };

/** Teams, their members and grants (administrator). Grants name a project or one target. */
export class TeamService {
  constructor(private readonly db: Database, private readonly commands: CommandHandler, private readonly ids: IdGenerator) {}

  async create(ctx: RequestContext, name: string) {
    const id = await this.ids.next('team');
    await this.commands.execute(streams.team(id), teamDecider, { type: 'CreateTeam', id, name }, ctx);
    return this.get(id);
  }

  async list() {
    const teams: { id: number; name: string; created_at: string }[] = await this.db.knex('teams').orderBy('id');
    return Promise.all(teams.map((t) => this.get(Number(t.id))));
  }

  async get(id: number) {
    const team = await this.db.knex('teams').where({ id }).first();
    if (!team) throw refuse.notFound('No such team.');
    const members: { account_id: number }[] = await this.db.knex('team_members').where({ team_id: id }).orderBy('account_id');
    const grants: { kind: GrantKind; target_id: number }[] = await this.db.knex('team_grants').where({ team_id: id }).orderBy(['kind', 'target_id']);
    return {
      id: Number(team.id), name: team.name, createdAt: team.created_at,
      members: members.map((m) => Number(m.account_id)),
      grants: grants.map((g) => ({ kind: g.kind, id: Number(g.target_id) })),
    };
  }

  async addMember(ctx: RequestContext, teamId: number, accountId: number) {
    if (!(await this.db.knex('accounts').where({ id: accountId }).first())) throw refuse.notFound(`No account ${accountId}.`);
    await this.commands.execute(streams.team(teamId), teamDecider, { type: 'AddMember', accountId }, ctx);
    return this.get(teamId);
  }

  async removeMember(ctx: RequestContext, teamId: number, accountId: number) {
    await this.commands.execute(streams.team(teamId), teamDecider, { type: 'RemoveMember', accountId }, ctx);
    return this.get(teamId);
  }

  async addGrant(ctx: RequestContext, teamId: number, kind: GrantKind, targetId: number) {
    if (!(await this.db.knex(GRANT_TABLE[kind]).where({ id: targetId }).first())) throw refuse.notFound(`No ${kind} ${targetId}.`);
    await this.commands.execute(streams.team(teamId), teamDecider, { type: 'AddGrant', kind, targetId }, ctx);
    return this.get(teamId);
  }

  async removeGrant(ctx: RequestContext, teamId: number, kind: GrantKind, targetId: number) {
    await this.commands.execute(streams.team(teamId), teamDecider, { type: 'RemoveGrant', kind, targetId }, ctx);
    return this.get(teamId);
  }
}
