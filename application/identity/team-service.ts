import { GrantKind, teamDecider } from '../../domain/identity/team';
import { refuse } from '../../domain/shared/decider';
import { CommandHandler, RequestContext } from '../command-handler';
import { IdGenerator } from '../ports/ids';
import { streams } from '../../domain/shared/streams';
import { AccountLookup, GrantableTargets } from './ports';

/**
 * Teams, their members and grants (administrator). Grants name a project or one target. The
 * commands answer nothing to show: the routes read the team back (projections/identity/team-queries.ts).
 */
export class TeamService {
  constructor(
    private readonly commands: CommandHandler,
    private readonly ids: IdGenerator,
    private readonly accounts: Pick<AccountLookup, 'byId'>,
    private readonly targets: Pick<GrantableTargets, 'exists'>,
  ) {}

  /** The new team's id. */
  async create(ctx: RequestContext, name: string): Promise<number> {
    const id = await this.ids.next('team');
    await this.commands.execute(streams.team(id), teamDecider, { type: 'CreateTeam', id, name }, ctx);
    return id;
  }

  async addMember(ctx: RequestContext, teamId: number, accountId: number): Promise<void> {
    if (!(await this.accounts.byId(accountId))) throw refuse.notFound(`No account ${accountId}.`);
    await this.commands.execute(streams.team(teamId), teamDecider, { type: 'AddMember', accountId }, ctx);
  }

  async removeMember(ctx: RequestContext, teamId: number, accountId: number): Promise<void> {
    await this.commands.execute(streams.team(teamId), teamDecider, { type: 'RemoveMember', accountId }, ctx);
  }

  async addGrant(ctx: RequestContext, teamId: number, kind: GrantKind, targetId: number): Promise<void> {
    if (!(await this.targets.exists(kind, targetId))) throw refuse.notFound(`No ${kind} ${targetId}.`);
    await this.commands.execute(streams.team(teamId), teamDecider, { type: 'AddGrant', kind, targetId }, ctx);
  }

  async removeGrant(ctx: RequestContext, teamId: number, kind: GrantKind, targetId: number): Promise<void> {
    await this.commands.execute(streams.team(teamId), teamDecider, { type: 'RemoveGrant', kind, targetId }, ctx);
  }
}
