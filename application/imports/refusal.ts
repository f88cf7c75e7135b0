/** A refusal with its HTTP status, for import paths where spec 1 §7 fixes the status per case. */
export class HttpRefusal extends Error {
  constructor(readonly status: 400 | 403 | 404 | 413, message: string) {
    super(message);
    this.name = 'HttpRefusal';
  }
}
