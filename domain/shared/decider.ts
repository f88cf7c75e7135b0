/**
 * The shape every bounded context follows (see docs/ARCHITECTURE.md):
 *   decide(command, state) -> events   (pure; refuses with a DomainError)
 *   evolve(state, event)   -> state    (pure; folds history)
 * Time, identifiers and randomness come in through the command, never from here.
 */
export interface DomainEvent<Type extends string = string, Data = unknown> {
  readonly type: Type;
  readonly data: Data;
}

export interface Decider<Command, Event extends DomainEvent, State> {
  readonly initialState: () => State;
  readonly decide: (command: Command, state: State) => Event[];
  readonly evolve: (state: State, event: Event) => State;
}

/** Why a command was refused. `kind` maps onto an HTTP status in interfaces/http/problem.ts. */
export type RefusalKind =
  | 'invalid'        // 400
  | 'forbidden'      // 403
  | 'not_found'      // 404
  | 'conflict'       // 409
  | 'gone';          // 410

export class DomainError extends Error {
  constructor(
    readonly kind: RefusalKind,
    message: string,
    /** urn:vigil:problem:<problemType>, only where spec 1 §7 names one. */
    readonly problemType?: string,
    /** Extra members of the problem document (e.g. existingRepositoryId). */
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const refuse = {
  invalid: (message: string, ext?: Record<string, unknown>) => new DomainError('invalid', message, undefined, ext),
  forbidden: (message: string) => new DomainError('forbidden', message),
  notFound: (message: string) => new DomainError('not_found', message),
  conflict: (message: string, problemType?: string, ext?: Record<string, unknown>) =>
    new DomainError('conflict', message, problemType, ext),
};

/** Folds a history into state: what "load the stream" means for a decider. */
export function fold<E extends DomainEvent, S>(decider: Pick<Decider<unknown, E, S>, 'initialState' | 'evolve'>, events: readonly E[]): S {
  return events.reduce(decider.evolve, decider.initialState());
}

/** Compile-time guard that a switch handled every case. */
export function assertNever(value: never): never {
  throw new Error(`Unhandled case: ${JSON.stringify(value)}`);
}
