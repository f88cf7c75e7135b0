import fc from 'fast-check';
import { benignUpload, uploadFor } from './documents';
import { abbreviate, headerSafe, percentEncode } from './encoding';
import { deepNesting, hostileNumber, hostileString, hugeArray, toJsonText, wrongType } from './hostile';
import { Operation, Parameter } from './operations';
import { benignFromSchema, fromSchema, Hints, validHostile } from './schema-arbitrary';

/**
 * Who a request claims to be. `caller` is the operation's own caller (an administrator's
 * session, the governor's for governor routes, the key for uploads, nobody for public routes);
 * the others are the variants a client or an attacker sends.
 */
export const CREDENTIALS = [
  'caller', 'admin-session', 'key', 'none', 'junk-bearer', 'lowercase-scheme', 'padded-bearer', 'basic', 'scheme-only',
  'junk-bearer+valid-key', 'duplicate-authorization', 'duplicate-key', 'long-token',
] as const;
export type Credential = (typeof CREDENTIALS)[number];

/** One generated request; printed short in failure reports. */
export class FuzzRequest {
  constructor(
    readonly op: Operation,
    readonly method: string,
    /** The path and query exactly as sent. */
    readonly target: string,
    readonly credential: Credential,
    readonly junkCredential: string,
    readonly headers: Record<string, string>,
    readonly body: Buffer | null,
  ) {}

  describe(): string {
    const lines = [`${this.method} ${abbreviate(this.target, 400)}`, `credential: ${this.credential}${this.junkCredential ? ` (${abbreviate(this.junkCredential, 120)})` : ''}`];
    for (const [k, v] of Object.entries(this.headers)) lines.push(`${k}: ${abbreviate(v, 200)}`);
    if (this.body) lines.push(`body (${this.body.length} bytes): ${abbreviate(this.body.toString('utf8'), 600)}`);
    return lines.join('\n');
  }

  [fc.toStringMethod](): string {
    return this.describe();
  }
}

/** Text that node:http puts in a header: hostile where a header can be (Latin-1, tabs, length). */
const headerText = (max: number) => fc.oneof(
  fc.string({ unit: fc.constantFrom('\t', ' ', 'a', '1', ',', ';', '"', '\\', '%', '\x80', '\x85', '\x9f', '\xa0', '\xff', 'é', '<'), maxLength: 40 }),
  fc.tuple(fc.string({ unit: fc.constantFrom('a', 'é', '\x85', ' ', ',', ':', '.'), minLength: 1, maxLength: 4 }), fc.integer({ min: 65, max: max }))
    .map(([chunk, n]) => chunk.repeat(Math.ceil(n / chunk.length)).slice(0, n)),
).map(headerSafe);

const forwardedFor = fc.oneof(
  headerText(3_000),
  fc.array(fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('unknown', '127.0.0.1', '::ffff:10.0.0.1', '999.999.999.999', '1.2.3', '"1.2.3.4"', '[::1]:80', '1.2.3.4:5678', 'fe80::1%eth0', '_hidden', ''), headerText(100)), { minLength: 1, maxLength: 20 })
    .map((a) => headerSafe(a.join(', '))),
);

/** The headers a proxy, a client or an attacker adds, each one present or not. */
const optionalHeaders = fc.record({
  'x-forwarded-for': forwardedFor,
  'user-agent': headerText(6_000),
  'x-correlation-id': headerText(3_000),
  'if-match': fc.oneof(fc.constantFrom('"1"', '"0"', '*', 'W/"1"', '"-1"', '"99999999999999999999"', '1'), headerText(200)),
  'content-type': fc.constantFrom('text/plain', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'application/json; charset=x-junk',
    'application/x-www-form-urlencoded', '', 'application/merge-patch+json', 'application/json, text/html', 'multipart/form-data; boundary=x'),
  'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity, gzip', 'x-junk'),
  accept: fc.constantFrom('application/xml', 'text/html', '*/*;q=0', ''),
}, { requiredKeys: [] });

const HOSTILE_PATH_VALUES = ['0', '-1', '-0', '00001', '1.0', '1e2', '0x1', '+1', '%201', '1%20', '2147483648', '9223372036854775808',
  '99999999999999999999999', '1'.repeat(300), 'NaN', 'Infinity', 'null', 'undefined', 'true', '%5B%5D', '%7B%7D', 'abc', '..', '.',
  '%', '%zz', '%E0%A4%A', '%ED%A0%80', '%00', '%2F', '%252F', '%2e%2e', '1;a=b', '1,2', '%C0%AF'];

/** A path parameter's value, encoded for the request line: a real id, or something hostile. */
function pathValue(known: string[], p: Parameter, hints: Hints, hostile: boolean): fc.Arbitrary<string> {
  if (!hostile) return known.length ? fc.constantFrom(...known.map(percentEncode)) : benignFromSchema(p.schema, hints, p.name).map((v) => percentEncode(String(v)));
  const generated = fc.oneof(validHostile(p.schema, hints, p.name), fromSchema(p.schema, hints, p.name)).map((v) => percentEncode(typeof v === 'string' ? v : toJsonText(v)));
  const arbs: Array<fc.WeightedArbitrary<string>> = [{ arbitrary: fc.constantFrom(...HOSTILE_PATH_VALUES), weight: 3 }, { arbitrary: generated, weight: 2 }];
  if (known.length) arbs.push({ arbitrary: fc.constantFrom(...known.map(percentEncode)), weight: 6 });
  return fc.oneof(...arbs);
}

/** The query string: declared parameters with hostile values, repeated ones, brackets, strangers. */
function query(params: Parameter[], hints: Hints, hostile: boolean): fc.Arbitrary<string> {
  const join = (parts: ReadonlyArray<readonly string[] | undefined>, stranger?: string) => {
    const all = parts.filter((x): x is readonly string[] => x !== undefined).flat().concat(stranger ? [stranger] : []);
    return all.length ? `?${all.join('&')}` : '';
  };
  if (!hostile) {
    return fc.tuple(...params.map((p) => fc.option(benignFromSchema(p.schema, hints, p.name).map((v) => [`${p.name}=${percentEncode(String(v))}`]), { freq: p.required ? 1_000 : 2, nil: undefined })))
      .map((parts) => join(parts));
  }
  const value = (p: Parameter) => fc.oneof(validHostile(p.schema, hints, p.name), fromSchema(p.schema, hints, p.name)).map((v) => (typeof v === 'string' ? v : toJsonText(v)));
  const encoded = (p: Parameter) => fc.oneof({ arbitrary: value(p).map(percentEncode), weight: 5 }, { arbitrary: value(p).filter((s) => /^[\x21-\x7e]*$/.test(s) && !/[#&]/.test(s)), weight: 1 });
  const one = (p: Parameter) => fc.option(fc.oneof(
    { arbitrary: encoded(p).map((v) => [`${p.name}=${v}`]), weight: 8 },
    { arbitrary: fc.tuple(encoded(p), encoded(p)).map(([a, b]) => [`${p.name}=${a}`, `${p.name}=${b}`]), weight: 1 },
    { arbitrary: encoded(p).map((v) => [`${p.name}[x]=${v}`]), weight: 1 },
    { arbitrary: fc.constantFrom([`${p.name}=`], [p.name], [`${p.name}[]=1`], [`${p.name}[__proto__]=1`]), weight: 1 },
  ), { freq: p.required ? 12 : 2, nil: undefined });
  const strangers = fc.option(fc.constantFrom('zz=1', '__proto__[x]=1', 'a[b][c][d][e][f]=1', '%00=%00', `${'k'.repeat(2_000)}=1`), { freq: 8, nil: undefined });
  return fc.tuple(fc.tuple(...params.map(one)), strangers).map(([parts, stranger]) => join(parts, stranger));
}

/** A JSON body's text: shaped by the schema with hostile leaves, or the wrong thing altogether; benign when not hostile. */
function jsonBody(op: Operation, hints: Hints, hostile: boolean): fc.Arbitrary<string | null> {
  if (!hostile) return op.body ? benignFromSchema(op.body, hints).map(toJsonText) : fc.constant(null);
  const notJson = fc.constantFrom('{', '{"a":}', '\u0000', '{"a":1}garbage', 'NaN', "{'a':1}", '\ufeff{}', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}');
  const wrong = fc.oneof(wrongType, deepNesting, hugeArray(hostileNumber()), hostileString()).map(toJsonText);
  return op.body
    ? fc.oneof(
      { arbitrary: validHostile(op.body, hints).map(toJsonText), weight: 10 },
      { arbitrary: fromSchema(op.body, hints).map(toJsonText), weight: 8 },
      { arbitrary: wrong, weight: 1 }, { arbitrary: notJson, weight: 1 }, { arbitrary: fc.constant(null), weight: 1 })
    : fc.oneof({ arbitrary: fc.constant(null), weight: 6 }, { arbitrary: wrong, weight: 1 });
}

/**
 * What one property of an operation varies, the rest being what a careful client sends, so that
 * one kind of defect does not hide the others behind it (fast-check stops at the first failure):
 * `input` the path parameters, query and body; `headers` the proxy, client and content headers;
 * `credentials` the credential and the way it is presented.
 */
export type Facet = 'input' | 'headers' | 'credentials';

/** Every request the fuzz sends to one operation for one facet. */
export function requestsFor(op: Operation, base: string, hints: Hints, pathValues: (segment: string, name: string) => string[], facet: Facet): fc.Arbitrary<FuzzRequest> {
  const hostile = facet === 'input';
  const segments = op.path.split('/');
  const params = op.pathParams.map((p) => {
    const at = segments.findIndex((s) => s.includes(`{${p.name}}`));
    const literal = segments.slice(0, at).reverse().find((s) => !s.includes('{')) ?? '';
    return pathValue(pathValues(literal, p.name), p, hints, hostile);
  });
  const body: fc.Arbitrary<{ body: Buffer | null; type: string | null }> = op.uploadTypes
    ? (hostile ? uploadFor(op.path, op.uploadTypes) : benignUpload(op.path, op.uploadTypes)).map((u) => ({ body: u.body, type: u.contentType }))
    : jsonBody(op, hints, hostile).map((text) => ({ body: text === null ? null : Buffer.from(text, 'utf8'), type: text === null ? null : 'application/json' }));
  const credential: fc.Arbitrary<Credential> = facet === 'credentials'
    ? fc.constantFrom<Credential>(...CREDENTIALS.filter((c) => c !== 'caller'))
    : fc.constant<Credential>('caller');
  const headers = facet === 'headers' ? optionalHeaders : fc.constant({});
  return fc.tuple(fc.tuple(...params), query(op.queryParams, hints, hostile), body, credential, headerText(2_000), headers).map(([values, q, b, cred, junk, extra]) => {
    let i = 0;
    const path = `${base}${op.path.replace(/\{[^}]+\}/g, () => values[i++])}${q}`;
    const h: Record<string, string> = {};
    if (b.type !== null && b.body) h['content-type'] = b.type;
    Object.assign(h, extra);
    const usesJunk = ['junk-bearer', 'junk-bearer+valid-key', 'duplicate-authorization'].includes(cred);
    return fitHead(new FuzzRequest(op, op.method.toUpperCase(), path, cred, usesJunk ? junk : '', h, b.body));
  });
}

/**
 * Node's HTTP parser answers a request head over 16 KB itself, with a bare 431 before Vigil
 * sees it; the fuzz keeps the head (request line and headers) under that so that its requests
 * reach Vigil: the target is cut at 8,000 characters and the long headers share what is left.
 */
function fitHead(r: FuzzRequest): FuzzRequest {
  const HEAD = 14_000;
  const target = r.target.length > 8_000 ? r.target.slice(0, 8_000) : r.target;
  const room = HEAD - target.length - 400; // request line, credential, content-type and length
  const long = [...Object.values(r.headers), r.junkCredential];
  const total = long.reduce((n, s) => n + s.length, 0);
  if (target === r.target && total <= room) return r;
  const scale = Math.min(1, room / Math.max(total, 1));
  const cut = (s: string) => s.slice(0, Math.floor(s.length * scale)).trim();
  const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, k === 'content-type' ? v : cut(v)]));
  return new FuzzRequest(r.op, r.method, target, r.credential, cut(r.junkCredential), headers, r.body);
}
