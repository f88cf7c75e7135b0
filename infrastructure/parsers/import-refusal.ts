import { ImportRefusal } from '../../domain/imports/import-refusal';
import { textProblem, type TextKind } from '../../domain/shared/text';

/** How the upload parsers throw the one refusal of a report (domain/imports/import-refusal.ts). */

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
