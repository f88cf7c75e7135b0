/**
 * What text may hold, for every way text enters Vigil: requests, imported documents, deciders.
 * A text that lands in a read model must fit its column and must not hold a character the
 * database refuses (PostgreSQL text refuses U+0000), or the projection that writes it fails on
 * that event forever (issue #17). One set of rules, so that a request schema, a parser and a
 * decider refuse the same things in the same words.
 *
 * - line: a name, an identifier, a path: no C0 control (U+0000 to U+001F), no DEL, no C1 control
 *   (U+0080 to U+009F);
 * - multiline: a comment, a key, known_hosts lines: the same, but tab, LF and CR are allowed;
 * - free: the free text of an imported document (a SARIF message): no C0 control but tab, LF and
 *   CR (a tool's text may hold DEL or C1 characters; the database takes them).
 */
export type TextKind = 'line' | 'multiline' | 'free';

/** The refused characters of each kind, as a regular-expression class body (also used as JSON Schema patterns). */
export const REFUSED_CLASS: Readonly<Record<TextKind, string>> = {
  line: '\\u0000-\\u001f\\u007f-\\u009f',
  multiline: '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f',
  free: '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f',
};

const REFUSED: Readonly<Record<TextKind, RegExp>> = {
  line: new RegExp(`[${REFUSED_CLASS.line}]`, 'u'),
  multiline: new RegExp(`[${REFUSED_CLASS.multiline}]`, 'u'),
  free: new RegExp(`[${REFUSED_CLASS.free}]`, 'u'),
};

/** Length in characters (code points), as PostgreSQL and MySQL count a varchar's width. */
export function characters(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** The first refused character of `text` and its position (1-based, in characters), or null. */
export function firstRefused(text: string, kind: TextKind): { char: string; at: number } | null {
  const m = REFUSED[kind].exec(text);
  if (!m) return null;
  return { char: m[0], at: characters(text.slice(0, m.index)) + 1 };
}

/** 1,024: a count as a person reads it in a refusal. */
export const grouped = (n: number): string => n.toLocaleString('en-US');

/** "U+0000", as a person reading a refusal can look it up. */
export function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

const NAMES: Readonly<Record<number, string>> = { 0: 'NUL', 9: 'tab', 10: 'line feed', 13: 'carriage return', 0x7f: 'DEL' };

/** "a control character (U+0000, NUL)". */
export function describeControl(char: string): string {
  const name = NAMES[char.codePointAt(0)!];
  return `a control character (${codePoint(char)}${name ? `, ${name}` : ''})`;
}

/** "a control character (U+0000, NUL) at character 5". */
export function describeRefused(found: { char: string; at: number }): string {
  return `${describeControl(found.char)} at character ${found.at}`;
}

/**
 * Why `text` may not be `field` (a sentence fragment starting with the field), or null when it may:
 * "runs[0].results[17].ruleId is 513 characters; at most 512", "name holds a control character
 * (U+0000, NUL) at character 5; control characters are not accepted there".
 */
export function textProblem(field: string, text: string, limits: { max: number; kind: TextKind }): string | null {
  // A text never has more code points than UTF-16 units: count them only when the units pass the bound
  // (an import checks every string of a 50,000-result report).
  if (text.length > limits.max) {
    const length = characters(text);
    if (length > limits.max) return `${field} is ${grouped(length)} characters; at most ${grouped(limits.max)}`;
  }
  const found = firstRefused(text, limits.kind);
  if (found) return `${field} holds ${describeRefused(found)}; ${ALLOWED[limits.kind]}`;
  return null;
}

/** What a refusal adds about the control characters a kind of text takes. */
export const ALLOWED: Readonly<Record<TextKind, string>> = {
  line: 'control characters are not accepted there',
  multiline: 'tab, line feed and carriage return are the only control characters accepted there',
  free: 'tab, line feed and carriage return are the only control characters (below U+0020) accepted there',
};

/**
 * For text nobody can be asked to correct (a scanner's output): the refused characters of its kind
 * each become a space, and it is cut to `max` characters (code points, so a pair of surrogates is
 * never split).
 */
export function fitted(text: string, max: number, kind: TextKind = 'line'): string {
  const clean = text.replace(REFUSED_ALL[kind], ' ');
  return characters(clean) <= max ? clean : [...clean].slice(0, max).join('');
}

const REFUSED_ALL: Readonly<Record<TextKind, RegExp>> = {
  line: new RegExp(`[${REFUSED_CLASS.line}]`, 'gu'),
  multiline: new RegExp(`[${REFUSED_CLASS.multiline}]`, 'gu'),
  free: new RegExp(`[${REFUSED_CLASS.free}]`, 'gu'),
};
