/**
 * The one error every upload parser throws when it will not accept a document.
 *
 * status is the HTTP answer the route gives (spec §7: 400 for a body that breaks a content rule,
 * 413 for one over a size guard); message is the problem document's detail, so it is written as
 * a whole sentence for the person who sent the report, never as a stack trace or parser jargon.
 */
export class ImportRefusal extends Error {
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
    this.name = 'ImportRefusal';
  }
}

/** Shorthand for the common case: the body breaks a content rule (400). */
export function refuse(message: string): never {
  throw new ImportRefusal(400, message);
}
