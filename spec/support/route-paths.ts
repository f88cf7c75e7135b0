import * as http from 'node:http';
import { RouteDef } from '../../interfaces/http/route';

/** Plausible values for the path parameters the routes declare. */
const PARAM_VALUES: Record<string, string> = {
  id: '1', accountId: '2', kind: 'repository', targetId: '1', slug: 'team-a', importId: '1', issueId: '1', badgeToken: 'vgl_b_token', major: '1',
};

/** The route's own path under /api/v1, its parameters filled in. */
export function canonicalPath(route: RouteDef): string {
  return `/api/v1${route.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (!(name in PARAM_VALUES)) throw new Error(`No plausible value for {${name}} in ${route.path}: add one to PARAM_VALUES.`);
    return PARAM_VALUES[name];
  })}`;
}

export interface Variant { name: string; path: string }

/**
 * Ways a client, a proxy or an attacker may spell a path so that a lenient router would take it
 * for the declared one: case, slashes, percent-encoding, dot segments, backslashes. `path` is a
 * canonical path whose segments flagged in `literal` are fixed text (not parameters).
 */
export function pathVariants(path: string, literal: boolean[]): Variant[] {
  const segments = path.split('/').slice(1);
  const join = (parts: string[]) => `/${parts.join('/')}`;
  const out: Variant[] = [
    { name: 'the whole path upper-cased', path: path.toUpperCase() },
    { name: 'a trailing slash', path: `${path}/` },
    { name: 'a leading //', path: `/${path}` },
    { name: 'a trailing backslash', path: `${path}\\` },
    { name: 'a dot segment x/.. in front', path: `/x/..${path}` },
    { name: 'a /./ in front', path: `/.${path}` },
    { name: 'a /.. at the end', path: `${path}/..` },
    { name: 'a /. at the end', path: `${path}/.` },
    { name: 'an encoded dot segment at the end', path: `${path}/%2E%2E` },
  ];
  for (let i = 1; i < segments.length; i++) {
    const before = segments.slice(0, i).join('/');
    const after = segments.slice(i).join('/');
    out.push({ name: `a doubled slash before segment ${i + 1}`, path: `/${before}//${after}` });
    out.push({ name: `%2F for slash ${i + 1}`, path: `/${before}%2F${after}` });
    out.push({ name: `%2f for slash ${i + 1}`, path: `/${before}%2f${after}` });
    out.push({ name: `a backslash for slash ${i + 1}`, path: `/${before}\\${after}` });
    out.push({ name: `a /x/../ before segment ${i + 1}`, path: `/${before}/x/../${after}` });
    out.push({ name: `a /./ before segment ${i + 1}`, path: `/${before}/./${after}` });
  }
  segments.forEach((segment, i) => {
    if (!literal[i]) return;
    const with_ = (text: string) => join([...segments.slice(0, i), text, ...segments.slice(i + 1)]);
    out.push({ name: `segment ${i + 1} capitalised`, path: with_(segment[0].toUpperCase() + segment.slice(1)) });
    out.push({ name: `segment ${i + 1} upper-cased`, path: with_(segment.toUpperCase()) });
    const first = segment.search(/[a-z]/);
    if (first >= 0) out.push({ name: `segment ${i + 1}, a letter percent-encoded`, path: with_(encodeAt(segment, first, false)) });
    // A letter whose code has a hex letter (j-o, z: %6A-%6F, %7A), in either case of hex digit.
    const hexy = segment.search(/[j-oz]/);
    if (hexy >= 0) {
      out.push({ name: `segment ${i + 1}, a letter percent-encoded (lower-case hex)`, path: with_(encodeAt(segment, hexy, false)) });
      out.push({ name: `segment ${i + 1}, a letter percent-encoded (upper-case hex)`, path: with_(encodeAt(segment, hexy, true)) });
    }
  });
  const seen = new Set([path]);
  return out.filter((v) => !seen.has(v.path) && seen.add(v.path));
}

/** Variants of a declared route's path: every spelling above, /api/v1 included. */
export function routeVariants(route: RouteDef): Variant[] {
  const path = canonicalPath(route);
  const literal = ['api', 'v1', ...route.path.split('/').slice(1)].map((s) => !s.includes('{'));
  const base = [{ name: '/API/V1 in front', path: `/API/V1${path.slice('/api/v1'.length)}` }];
  return [...base, ...pathVariants(path, literal).filter((v) => v.path !== base[0].path)];
}

/**
 * The other routes (any method) whose path this plainly is, their parameters taking values that
 * decode to letters, digits, '_' or '-': GET /api/v1/repositories/Duplicates is GET
 * /repositories/{id}, and /api/v1/issues/Triage is the path of GET /issues/{id}, not spellings of
 * /repositories/duplicates or POST /issues/triage. Written apart from the route table on purpose.
 */
export function otherRoutesAt(routes: readonly RouteDef[], route: RouteDef, path: string): RouteDef[] {
  const plain = (raw: string) => {
    try {
      return /^[A-Za-z0-9_-]+$/.test(decodeURIComponent(raw));
    } catch {
      return false;
    }
  };
  return routes.filter((r) => {
    if (r === route) return false;
    const found = new RegExp(`^/api/v1${r.path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '([^/]+)')}$`).exec(path);
    return !!found && found.slice(1).every(plain);
  });
}

function encodeAt(text: string, index: number, upper: boolean): string {
  const hex = text.charCodeAt(index).toString(16);
  return `${text.slice(0, index)}%${upper ? hex.toUpperCase() : hex}${text.slice(index + 1)}`;
}

export interface RawAnswer { status: number; contentType: string; text: string }

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

/**
 * One request with the path exactly as written: node:http sends it as it is, where fetch would
 * resolve dot segments and encode backslashes first.
 */
export function rawRequest(base: string, method: string, path: string, options: { token?: string; body?: string | Buffer; contentType?: string } = {}): Promise<RawAnswer> {
  const url = new URL(base);
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) {
    headers['content-type'] = options.contentType ?? 'application/json';
    headers['content-length'] = String(Buffer.byteLength(options.body));
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, contentType: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
