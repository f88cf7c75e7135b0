import fc from 'fast-check';

/**
 * Hostile leaves: the characters, lengths and numbers that break storage and display code.
 * Long texts are a short chunk repeated to a length, so that fast-check shrinks the length and
 * the chunk instead of a 100,000-character string letter by letter.
 */

/** Raw JSON text put as it is where a value goes (1e999, -0, a nesting 10,000 deep). */
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * A JSON object as its list of members: `__proto__` stays a member name (a plain object would
 * take it as its prototype), and a name may come twice.
 */
export class JsonObject {
  constructor(readonly members: ReadonlyArray<readonly [string, unknown]>) {}
}

const C0 = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i));
const C1 = Array.from({ length: 32 }, (_, i) => String.fromCharCode(0x80 + i));

/** One troublesome character (or pair) per class. */
export const hostileChar: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constant('\u0000'), weight: 4 },
  { arbitrary: fc.constantFrom(...C0), weight: 3 },
  { arbitrary: fc.constant('\u007f'), weight: 1 },
  { arbitrary: fc.constantFrom(...C1), weight: 2 },
  { arbitrary: fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff'), weight: 3 }, // lone surrogates
  { arbitrary: fc.constantFrom('\u202e', '\u202d', '\u2066', '\u200f', '\u200b', '\ufeff', '\u2028', '\u2029', '\ufffe', '\uffff'), weight: 2 },
  { arbitrary: fc.constantFrom('😀', '\u0301', 'é', 'ß', 'İ', '𝔘', '\u{10ffff}'), weight: 2 },
  { arbitrary: fc.constantFrom("'", '"', '\\', '%', '/', '.', '<', '>', '&', '{', '$', '`', ';', '#', '?', '*'), weight: 2 },
);

const plainChar = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_.'.split(''));

/** Plain text the length rules allow, mostly to get past validation with hostile neighbours. */
export function plainText(min: number, max: number): fc.Arbitrary<string> {
  return fc.string({ unit: plainChar, minLength: min, maxLength: Math.max(min, Math.min(max, 24)) });
}

/** Text within the length rules but made of hostile and plain characters. */
export function hostileText(min: number, max: number): fc.Arbitrary<string> {
  const unit = fc.oneof({ arbitrary: hostileChar, weight: 1 }, { arbitrary: plainChar, weight: 1 });
  // Length is counted in code points by the validator; an astral pair is one, so stay well inside.
  return fc.string({ unit, minLength: min, maxLength: Math.max(min, Math.min(max, 40)) });
}

/** Exactly at the declared maximum, in characters that take several bytes (or none at all). */
export function atLimit(max: number): fc.Arbitrary<string> {
  return fc.constantFrom('é', '😀', 'x', '\u0000', '\u202e', 'ア').map((c) => c.repeat(max));
}

/** 1,000 to 100,000 characters: a chunk repeated. */
export const overLong: fc.Arbitrary<string> = fc.tuple(
  fc.string({ unit: fc.oneof(hostileChar, plainChar), minLength: 1, maxLength: 6 }),
  fc.integer({ min: 1_000, max: 100_000 }),
).map(([chunk, n]) => chunk.repeat(Math.ceil(n / chunk.length)).slice(0, n));

/**
 * Text the length rules allow, made to hurt what comes after validation: control characters,
 * lone surrogates and direction overrides inside the bounds, exactly the maximum in multi-byte
 * characters, and 1,000 to 100,000 characters where no maximum is declared.
 */
export function hostileInBounds(min = 0, max?: number): fc.Arbitrary<string> {
  const arbs: Array<fc.WeightedArbitrary<string>> = [
    { arbitrary: hostileText(min, max ?? 40), weight: 6 },
    { arbitrary: plainText(Math.max(min, 1), max ?? 24), weight: 1 },
  ];
  if (max === undefined) arbs.push({ arbitrary: overLong.filter((t) => t.length >= min), weight: 3 });
  else if (max >= Math.max(min, 1)) arbs.push({ arbitrary: atLimit(max), weight: 3 });
  return fc.oneof(...arbs);
}

/** Numbers the bounds allow, favouring the edges and, where none is declared, what a 32-bit column cannot hold. */
export function numberInBounds(min?: number, max?: number, integer = true): fc.Arbitrary<number> {
  const lo = min ?? -(2 ** 53 - 1);
  const hi = max ?? 2 ** 53 - 1;
  const edges = [lo, hi, 0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32, -(2 ** 31) - 1, 2 ** 53 - 1].filter((n) => n >= lo && n <= hi);
  const arbs: Array<fc.WeightedArbitrary<number>> = [
    { arbitrary: fc.integer({ min: Math.max(lo, -1_000_000), max: Math.min(hi, 1_000_000) }).filter((n) => n >= lo), weight: 2 },
    { arbitrary: fc.constantFrom(...edges), weight: 3 },
  ];
  if (!integer) arbs.push({ arbitrary: fc.double({ min: Math.max(lo, -1e6), max: Math.min(hi, 1e6), noNaN: true, noDefaultInfinity: true }), weight: 1 });
  return fc.oneof(...arbs);
}

/** Any text the fuzz throws at a string leaf, given its length rules. */
export function hostileString(min = 0, max = 1_000_000): fc.Arbitrary<string> {
  const arbs: Array<fc.WeightedArbitrary<string>> = [
    { arbitrary: plainText(min, max), weight: 3 },
    { arbitrary: hostileText(min, max), weight: 5 },
    { arbitrary: overLong, weight: 2 },
    { arbitrary: fc.constantFrom('', ' ', '\u0000', 'null', 'undefined', '0', '-1', 'true', '[]', '{}', '../../etc/passwd', "' OR 1=1 --", '<script>alert(1)</script>', '${jndi:ldap://x}', '%00', '%s%n'), weight: 2 },
  ];
  if (max < 100_000) arbs.push({ arbitrary: atLimit(max), weight: 2 });
  return fc.oneof(...arbs);
}

/** Numbers out of range, of the wrong kind, or past what a database integer holds. */
export function hostileNumber(min?: number, max?: number, integer = true): fc.Arbitrary<number | RawJson> {
  const lo = min ?? -1_000;
  const hi = max ?? 1_000;
  return fc.oneof(
    { arbitrary: fc.integer({ min: Math.max(lo, -1_000_000), max: Math.min(hi, 1_000_000) }), weight: 4 },
    { arbitrary: fc.constantFrom(...[lo, hi, lo - 1, hi + 1].filter(Number.isFinite)), weight: 3 },
    { arbitrary: fc.constantFrom(0, -1, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53, 2 ** 63, -(2 ** 63), 1e308, -1e308, 5e-324, 1.5, 0.1, integer ? 2.000001 : 3), weight: 3 },
    { arbitrary: fc.constantFrom('1e999', '-1e999', '-0', '1E2', '9223372036854775808', '123456789012345678901234567890', '0.0000000000000000000001').map((t) => new RawJson(t)), weight: 2 },
  );
}

/** A value of some other JSON type than the schema asks for. */
export const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null), fc.boolean(), fc.integer(), fc.constant(''), fc.constant([]), fc.constant({}),
  fc.constant(['x']), fc.constant({ a: 1 }), fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Arrays or objects nested 1,000 to 100,000 deep, as JSON text. */
export const deepNesting: fc.Arbitrary<RawJson> = fc.tuple(fc.constantFrom('[', '{"a":'), fc.integer({ min: 1_000, max: 100_000 }))
  .map(([open, depth]) => new RawJson(`${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}`));

/** A huge array of one small value: 1,000 to 100,000 items. */
export function hugeArray(item: fc.Arbitrary<unknown>): fc.Arbitrary<RawJson> {
  return fc.tuple(item, fc.integer({ min: 1_000, max: 100_000 })).map(([v, n]) => {
    const one = toJsonText(v);
    // At most about 2 MB of text: past every body limit, within what a JavaScript string holds.
    const count = Math.max(2, Math.min(n, Math.floor(2_000_000 / (one.length + 1))));
    return new RawJson(`[${Array(count).fill(one).join(',')}]`);
  });
}

/** Member names that trip object handling in JavaScript or in the storage code. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'id', 'actor', 'roles', 'admin', '', ' ', '$where', 'a.b', 'a[0]'),
  hostileText(1, 20),
  overLong.map((s) => s.slice(0, 2_000)),
);

/** JSON text of a generated value; RawJson pieces go in as they are. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value instanceof JsonObject) return `{${value.members.map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`).join(',')}}`;
  if (value !== null && typeof value === 'object') return toJsonText(new JsonObject(Object.entries(value as Record<string, unknown>)));
  return JSON.stringify(value) ?? 'null';
}
