/**
 * A minimal `rejectedWith` for chai 4 (the chai-as-promised package is ESM-only in its current
 * major): `await expect(promise).to.be.rejectedWith(ErrorClass)`.
 */
export default function chaiAsPromised(chai: Chai.ChaiStatic, utils: Chai.ChaiUtils): void {
  utils.addMethod(chai.Assertion.prototype, 'rejectedWith', function (this: Chai.AssertionStatic, errorClass: new (...a: never[]) => Error) {
    const promise = utils.flag(this, 'object') as Promise<unknown>;
    return promise.then(
      () => { throw new chai.AssertionError(`expected promise to be rejected with ${errorClass.name}, but it resolved`); },
      (error: unknown) => {
        if (!(error instanceof errorClass)) throw new chai.AssertionError(`expected ${errorClass.name}, got ${String(error)}`);
        return error;
      },
    );
  });
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Chai {
    interface Assertion {
      rejectedWith(errorClass: new (...args: never[]) => Error): Promise<Error>;
    }
  }
}
