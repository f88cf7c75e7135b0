import { expect } from 'chai';
import { Decider, DomainError, DomainEvent, fold } from '../../domain/shared/decider';

/**
 * Given-events / when-command / then-events specifications for deciders,
 * so that each spec reads like a row of the specification's state tables.
 */
export function deciderSpec<C, E extends DomainEvent, S>(decider: Decider<C, E, S>) {
  return {
    given(events: E[]) {
      return {
        when(command: C) {
          const run = () => decider.decide(command, fold(decider, events));
          return {
            then(expected: E[]) {
              expect(run()).to.deep.equal(expected);
            },
            thenRefused(kind: DomainError['kind'], problemType?: string): DomainError {
              let error: unknown;
              try {
                run();
              } catch (e) {
                error = e;
              }
              expect(error, 'expected the command to be refused').to.be.instanceOf(DomainError);
              const domainError = error as DomainError;
              expect(domainError.kind).to.equal(kind);
              if (problemType) expect(domainError.problemType).to.equal(problemType);
              return domainError;
            },
          };
        },
      };
    },
  };
}

/** The DomainError a function throws (anything else, or nothing, fails the test). */
export function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a refusal');
}
