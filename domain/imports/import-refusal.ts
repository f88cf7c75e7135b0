/**
 * The one refusal of an uploaded report: the parsers throw it when they will not accept a document,
 * and the import services turn it into their answer.
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
