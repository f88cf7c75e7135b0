import { StringOptions, Type } from '@sinclair/typebox';
import { REFUSED_CLASS, TextKind } from '../../domain/shared/text';

/**
 * Every string a route accepts is a Text: bounded (maxLength: at most the width of the column it
 * lands in, domain/shared/column-widths.ts) and free of control characters (domain/shared/text.ts),
 * so that no request can append an event that a projection then fails on forever (issue #17).
 *
 * - single-line text (the default) refuses C0 controls (U+0000 to U+001F), DEL and C1 controls
 *   (U+0080 to U+009F);
 * - multi-line text (comments, known_hosts, private keys) allows tab, LF and CR among them.
 *
 * The rule is a JSON Schema pattern, so the OpenAPI document shows it and express-openapi-validator
 * enforces it (400); problem.ts turns the validator's message into plain words naming the field.
 */
export const TEXT_PATTERNS: Readonly<Record<Exclude<TextKind, 'free'>, string>> = {
  line: `^[^${REFUSED_CLASS.line}]*$`,
  multiline: `^[^${REFUSED_CLASS.multiline}]*$`,
};

export interface TextOptions extends Pick<StringOptions, 'minLength' | 'format' | 'description'> {
  /** At most this many characters (code points, as the columns count them). */
  max: number;
  /** Tab, LF and CR allowed. */
  multiline?: boolean;
}

export function Text({ max, multiline = false, ...options }: TextOptions) {
  return Type.String({ ...options, maxLength: max, pattern: TEXT_PATTERNS[multiline ? 'multiline' : 'line'] });
}

/** The kind of text a pattern of this module stands for, or null for any other pattern. */
export function kindOfPattern(pattern: string): Exclude<TextKind, 'free'> | null {
  if (pattern === TEXT_PATTERNS.line) return 'line';
  if (pattern === TEXT_PATTERNS.multiline) return 'multiline';
  return null;
}
