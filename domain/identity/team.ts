import { assertNever, Decider, DomainEvent, refuse } from '../shared/decider';

/** Teams decide visibility: a member sees what the team is granted (a project, or one target). */
export type GrantKind = 'project' | 'repository' | 'container';

export type TeamEvent =
  | DomainEvent<'TeamCreated', { id: number; name: string }>
  | DomainEvent<'TeamMemberAdded', { teamId: number; accountId: number }>
  | DomainEvent<'TeamMemberRemoved', { teamId: number; accountId: number }>
  | DomainEvent<'TeamGrantAdded', { teamId: number; kind: GrantKind; targetId: number }>
  | DomainEvent<'TeamGrantRemoved', { teamId: number; kind: GrantKind; targetId: number }>;

export type TeamCommand =
  | { type: 'CreateTeam'; id: number; name: string }
  | { type: 'AddMember'; accountId: number }
  | { type: 'RemoveMember'; accountId: number }
  | { type: 'AddGrant'; kind: GrantKind; targetId: number }
  | { type: 'RemoveGrant'; kind: GrantKind; targetId: number };

export interface TeamState {
  status: 'none' | 'active';
  id: number | null;
  members: Set<number>;
  grants: Set<string>;
}

export const teamTransitions: Record<TeamState['status'], readonly TeamCommand['type'][]> = {
  none: ['CreateTeam'],
  active: ['AddMember', 'RemoveMember', 'AddGrant', 'RemoveGrant'],
};

const grantKey = (kind: GrantKind, id: number) => `${kind}:${id}`;

export const teamDecider: Decider<TeamCommand, TeamEvent, TeamState> = {
  initialState: () => ({ status: 'none', id: null, members: new Set(), grants: new Set() }),
  decide(command, state) {
    if (!teamTransitions[state.status].includes(command.type)) {
      throw state.status === 'none' ? refuse.notFound('No such team.') : refuse.conflict('This team already exists.');
    }
    const teamId = state.id!;
    switch (command.type) {
      case 'CreateTeam': {
        const name = command.name?.trim();
        if (!name) throw refuse.invalid('A team needs a name.');
        return [{ type: 'TeamCreated', data: { id: command.id, name } }];
      }
      case 'AddMember':
        return state.members.has(command.accountId) ? [] : [{ type: 'TeamMemberAdded', data: { teamId, accountId: command.accountId } }];
      case 'RemoveMember':
        return state.members.has(command.accountId) ? [{ type: 'TeamMemberRemoved', data: { teamId, accountId: command.accountId } }] : [];
      case 'AddGrant':
        return state.grants.has(grantKey(command.kind, command.targetId)) ? [] : [{ type: 'TeamGrantAdded', data: { teamId, kind: command.kind, targetId: command.targetId } }];
      case 'RemoveGrant':
        return state.grants.has(grantKey(command.kind, command.targetId)) ? [{ type: 'TeamGrantRemoved', data: { teamId, kind: command.kind, targetId: command.targetId } }] : [];
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'TeamCreated': return { ...state, status: 'active', id: event.data.id };
      case 'TeamMemberAdded': return { ...state, members: new Set(state.members).add(event.data.accountId) };
      case 'TeamMemberRemoved': { const m = new Set(state.members); m.delete(event.data.accountId); return { ...state, members: m }; }
      case 'TeamGrantAdded': return { ...state, grants: new Set(state.grants).add(grantKey(event.data.kind, event.data.targetId)) };
      case 'TeamGrantRemoved': { const g = new Set(state.grants); g.delete(grantKey(event.data.kind, event.data.targetId)); return { ...state, grants: g }; }
      default: return assertNever(event);
    }
  },
};
