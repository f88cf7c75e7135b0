import { assertNever, Decider, DomainEvent, refuse } from '../shared/decider';

/** Solutions group projects; projects group targets (spec 1 §2.9, §4.2). One stream each. */
export type PortfolioEvent =
  | DomainEvent<'SolutionCreated', { id: number; name: string }>
  | DomainEvent<'ProjectCreated', { id: number; name: string; solutionId: number | null }>;

export type PortfolioCommand =
  | { type: 'CreateSolution'; id: number; name: string }
  | { type: 'CreateProject'; id: number; name: string; solutionId: number | null };

export interface PortfolioState { status: 'none' | 'active' }

export const portfolioTransitions: Record<PortfolioState['status'], readonly PortfolioCommand['type'][]> = {
  none: ['CreateSolution', 'CreateProject'],
  active: [],
};

function name(text: string): string {
  const n = (text ?? '').trim();
  if (!n || n.length > 200) throw refuse.invalid('A name has 1 to 200 characters.');
  return n;
}

export const portfolioDecider: Decider<PortfolioCommand, PortfolioEvent, PortfolioState> = {
  initialState: () => ({ status: 'none' }),
  decide(command, state) {
    if (!portfolioTransitions[state.status].includes(command.type)) throw refuse.conflict('It exists already.');
    switch (command.type) {
      case 'CreateSolution': return [{ type: 'SolutionCreated', data: { id: command.id, name: name(command.name) } }];
      case 'CreateProject': return [{ type: 'ProjectCreated', data: { id: command.id, name: name(command.name), solutionId: command.solutionId } }];
      default: return assertNever(command);
    }
  },
  evolve: () => ({ status: 'active' }),
};
