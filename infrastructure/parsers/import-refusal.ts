import { textProblem, type TextKind } from '../../domain/shared/text';

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

/**
 * A string of the document as it may be kept (domain/shared/text.ts): at most `max` characters
 * and no control character of its kind; otherwise a 400 naming the field and where it is:
 * "In the SARIF log, runs[0].results[17].ruleId is 513 characters; at most 512."
 */
export function bounded(document: string, field: string, value: string, max: number, kind: TextKind = 'line'): string {
  const problem = textProblem(field, value, { max, kind });
  if (problem) refuse(`In the ${document}, ${problem}.`);
  return value;
}
