import fc from 'fast-check';
import { deepNesting, hostileInBounds, hostileKey, hostileNumber, hostileString, hugeArray, JsonObject, numberInBounds, plainText, RawJson, toJsonText, wrongType } from './hostile';

/** The part of JSON Schema the routes' typebox schemas use. */
export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
  anyOf?: JsonSchema[];
  const?: unknown;
}

/**
 * Real values for a member name (ids that exist, roles, scopes, setting names), so that many
 * generated bodies get past validation and reach the services and the read models.
 */
export type Hints = (member: string) => readonly unknown[] | undefined;

/**
 * Values shaped by the schema with hostile leaves: mostly the declared type with hostile
 * content inside the declared bounds, sometimes out of bounds, of the wrong type, nested
 * thousands deep or thousands long; objects sometimes miss required members or carry extra ones.
 */
export function fromSchema(schema: JsonSchema, hints: Hints, member = '', depth = 0): fc.Arbitrary<unknown> {
  const shaped = shapedBy(schema, hints, member, depth);
  const known = hints(member);
  const arbs: Array<fc.WeightedArbitrary<unknown>> = [{ arbitrary: shaped, weight: 20 }, { arbitrary: wrongType, weight: 2 }];
  if (known?.length && schema.type !== 'array') arbs.push({ arbitrary: fc.constantFrom(...known), weight: 12 });
  if (depth <= 1) arbs.push({ arbitrary: deepNesting, weight: 1 }, { arbitrary: hugeArray(wrongType), weight: 1 });
  return fc.oneof(...arbs);
}

function shapedBy(schema: JsonSchema, hints: Hints, member: string, depth: number): fc.Arbitrary<unknown> {
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => shapedBy(s, hints, member, depth)));
  if (schema.const !== undefined) return constant(schema.const);
  switch (schema.type) {
    case 'object': return schema.properties ? object(schema, hints, depth) : record(schema, hints, member, depth);
    case 'array': return array(schema, hints, member, depth);
    case 'string': return schema.format === 'date-time' ? dateTime : hostileString(schema.minLength ?? 0, schema.maxLength);
    case 'integer': return hostileNumber(schema.minimum, schema.maximum, true);
    case 'number': return hostileNumber(schema.minimum, schema.maximum, false);
    case 'boolean': return fc.boolean();
    case 'null': return fc.constant(null);
    default: return fc.oneof(hostileString(), hostileNumber(), wrongType); // no type: anything
  }
}

function constant(value: unknown): fc.Arbitrary<unknown> {
  if (typeof value !== 'string') return fc.constant(value);
  return fc.oneof(
    { arbitrary: fc.constant(value), weight: 8 },
    { arbitrary: fc.constantFrom(value.toUpperCase(), `${value}\u0000`, ` ${value}`, `${value}\u202e`, value.replace(/_/g, '-')), weight: 2 },
  );
}

function object(schema: JsonSchema, hints: Hints, depth: number): fc.Arbitrary<JsonObject> {
  const required = new Set(schema.required ?? []);
  const members = Object.entries(schema.properties ?? {}).map(([name, s]) =>
    fc.option(fromSchema(s, hints, name, depth + 1).map((v) => [name, v] as const), { freq: required.has(name) ? 12 : 2, nil: undefined }));
  const extras = fc.option(fc.array(fc.tuple(hostileKey, fc.oneof(wrongType, hostileString())), { minLength: 1, maxLength: 2 }), { freq: 6, nil: undefined });
  const duplicate = fc.option(fc.nat(), { freq: 15, nil: undefined });
  return fc.tuple(fc.tuple(...members), extras, duplicate).map(([present, extra, dup]) => {
    const list: Array<readonly [string, unknown]> = present.filter((m): m is readonly [string, unknown] => m !== undefined);
    if (extra) list.push(...extra);
    if (dup !== undefined && list.length > 0) list.push([list[dup % list.length][0], null]);
    return new JsonObject(list);
  });
}

/** A map of names to values (PATCH /settings): real names from the hints, and hostile ones. */
function record(schema: JsonSchema, hints: Hints, member: string, depth: number): fc.Arbitrary<JsonObject> {
  const valueSchema = Object.values(schema.patternProperties ?? {})[0] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : {});
  const names = hints(`${member}[name]`) as string[] | undefined;
  const key = names?.length ? fc.oneof({ arbitrary: fc.constantFrom(...names), weight: 4 }, { arbitrary: hostileKey, weight: 1 }) : hostileKey;
  return fc.array(fc.tuple(key, fromSchema(valueSchema, hints, '', depth + 1)), { minLength: 0, maxLength: 3 }).map((m) => new JsonObject(m));
}

function array(schema: JsonSchema, hints: Hints, member: string, depth: number): fc.Arbitrary<unknown> {
  const min = schema.minItems ?? 0;
  const max = schema.maxItems ?? 1_000_000;
  const known = hints(member);
  const item = known?.length
    ? fc.oneof({ arbitrary: fc.constantFrom(...known), weight: 3 }, { arbitrary: fromSchema(schema.items ?? {}, hints, '', depth + 1), weight: 1 })
    : fromSchema(schema.items ?? {}, hints, '', depth + 1);
  const arbs: Array<fc.WeightedArbitrary<unknown>> = [
    { arbitrary: fc.array(item, { minLength: min, maxLength: Math.max(min, Math.min(max, 4)) }), weight: 8 },
    { arbitrary: fc.constant([]), weight: 1 },
    { arbitrary: hugeArray(item), weight: 1 },
  ];
  if (max <= 1_000) arbs.push({ arbitrary: item.filter((v) => toJsonText(v).length < 1_000).map((v) => new RawJson(`[${Array(max + 1).fill(toJsonText(v)).join(',')}]`)), weight: 1 });
  return fc.oneof(...arbs);
}

/** ISO times: real ones, the extremes JavaScript and SQL disagree on, and impossible dates. */
const dateTime: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_000 }).map((t) => new Date(t).toISOString()), weight: 4 },
  { arbitrary: fc.constantFrom('+275760-09-13T00:00:00.000Z', '-271821-04-20T00:00:00.000Z', '0000-01-01T00:00:00Z', '9999-12-31T23:59:60Z',
    '2024-02-30T00:00:00Z', '2024-13-01T00:00:00Z', '1970-01-01T00:00:00+25:00', '2024-01-01T00:00:00.1234567890123Z', '2024-01-01', 'now'), weight: 3 },
  { arbitrary: hostileString(), weight: 2 },
);

/**
 * Values a careful client sends: the declared type inside the declared bounds, real values where
 * the hints have them. They carry the hostile headers and credentials to the code behind validation.
 */
export function benignFromSchema(schema: JsonSchema, hints: Hints, member = ''): fc.Arbitrary<unknown> {
  const known = hints(member);
  if (known?.length && schema.type !== 'array') return fc.constantFrom(...known);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.filter((s) => s.type !== 'null').map((s) => benignFromSchema(s, hints, member)));
  if (schema.const !== undefined) return fc.constant(schema.const);
  switch (schema.type) {
    case 'object': {
      if (!schema.properties) { // a map (PATCH /settings): one real name
        const names = hints(`${member}[name]`);
        const valueSchema = Object.values(schema.patternProperties ?? {})[0] ?? {};
        return names?.length ? fc.tuple(fc.constantFrom(...names), benignFromSchema(valueSchema, hints)).map((m) => new JsonObject([m as [string, unknown]])) : fc.constant(new JsonObject([]));
      }
      const required = new Set(schema.required ?? []);
      const members = Object.entries(schema.properties).map(([name, s]) => {
        const value = benignFromSchema(s, hints, name).map((v) => [name, v] as const);
        return required.has(name) ? value : fc.option(value, { nil: undefined });
      });
      return fc.tuple(...members).map((m) => new JsonObject(m.filter((x): x is readonly [string, unknown] => x !== undefined)));
    }
    case 'array': {
      const item = known?.length ? fc.constantFrom(...known) : benignFromSchema(schema.items ?? {}, hints);
      const min = schema.minItems ?? 0;
      return fc.array(item, { minLength: min, maxLength: Math.max(min, Math.min(schema.maxItems ?? 3, 3)) });
    }
    case 'string':
      if (schema.format === 'date-time') return fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }).map((t) => new Date(t).toISOString());
      return plainText(Math.max(schema.minLength ?? 0, 1), schema.maxLength ?? 24);
    case 'integer':
    case 'number':
      return fc.integer({ min: schema.minimum ?? 0, max: Math.min(schema.maximum ?? 1_000, Math.max(schema.minimum ?? 0, 0) + 1_000) });
    case 'boolean': return fc.boolean();
    case 'null': return fc.constant(null);
    default: return plainText(1, 12);
  }
}

/**
 * Values the schema accepts, with hostile content: what passes validation and reaches the
 * services, the event log and the read models (control characters in a name, a 32-bit overflow
 * in an unbounded integer, 10,000 roles, 100,000 characters where no maximum is declared).
 */
export function validHostile(schema: JsonSchema, hints: Hints, member = ''): fc.Arbitrary<unknown> {
  const known = hints(member);
  const own = validShaped(schema, hints, member);
  return known?.length && schema.type !== 'array' ? fc.oneof(fc.constantFrom(...known), own) : own;
}

function validShaped(schema: JsonSchema, hints: Hints, member: string): fc.Arbitrary<unknown> {
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => validShaped(s, hints, member)));
  if (schema.const !== undefined) return fc.constant(schema.const);
  switch (schema.type) {
    case 'object': {
      if (!schema.properties) {
        const names = hints(`${member}[name]`);
        const valueSchema = Object.values(schema.patternProperties ?? {})[0] ?? {};
        const key: fc.Arbitrary<string> = names?.length ? fc.oneof({ arbitrary: fc.constantFrom(...(names as string[])), weight: 4 }, { arbitrary: hostileInBounds(), weight: 1 }) : hostileInBounds();
        return fc.array(fc.tuple(key, validHostile(valueSchema, hints)), { minLength: 1, maxLength: 3 }).map((m) => new JsonObject(m));
      }
      const required = new Set(schema.required ?? []);
      const members = Object.entries(schema.properties).map(([name, s]) => {
        const value = validHostile(s, hints, name).map((v) => [name, v] as const);
        return required.has(name) ? value : fc.option(value, { nil: undefined });
      });
      return fc.tuple(...members).map((m) => new JsonObject(m.filter((x): x is readonly [string, unknown] => x !== undefined)));
    }
    case 'array': {
      const known = hints(member);
      const item = known?.length ? fc.oneof(fc.constantFrom(...known), validHostile(schema.items ?? {}, hints)) : validHostile(schema.items ?? {}, hints);
      const min = schema.minItems ?? 0;
      const arbs: Array<fc.WeightedArbitrary<unknown>> = [{ arbitrary: fc.array(item, { minLength: min, maxLength: Math.max(min, Math.min(schema.maxItems ?? 4, 4)) }), weight: 6 }];
      if (schema.maxItems === undefined) arbs.push({ arbitrary: hugeArray(item), weight: 1 });
      return fc.oneof(...arbs);
    }
    case 'string':
      if (schema.format === 'date-time') {
        return fc.oneof(
          fc.integer({ min: Date.UTC(1, 0, 1), max: Date.UTC(9999, 11, 31) }).map((t) => new Date(t).toISOString()),
          fc.constantFrom('0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '2016-12-31T23:59:60Z', '2024-02-29T12:00:00+14:00', '2024-01-01T00:00:00-12:00'),
        );
      }
      return hostileInBounds(schema.minLength ?? 0, schema.maxLength);
    case 'integer': return numberInBounds(schema.minimum, schema.maximum, true);
    case 'number': return numberInBounds(schema.minimum, schema.maximum, false);
    case 'boolean': return fc.boolean();
    case 'null': return fc.constant(null);
    default: return fc.oneof(hostileInBounds(), numberInBounds(), fc.boolean(), fc.constant(null));
  }
}
