import { RouteDef } from './route';

export const API_BASE = '/api/v1';

/**
 * What the route table says of one request, decided once: a declared route with its decoded path
 * parameters, a declared path asked with another method, or a path no route declares.
 */
export type Resolution =
  | { kind: 'route'; route: RouteDef; params: Record<string, string> }
  | { kind: 'other-method' }
  | { kind: 'none' };

/** One raw path character of RFC 3986 (pchar): no slash, backslash, space or '#'. */
const PCHAR = "(?:[A-Za-z0-9\\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})";

interface Compiled { def: RouteDef; regex: RegExp; names: string[]; ranks: number[] }

/**
 * The declared routes, matched exactly: case-sensitive, literal segments byte for byte (an
 * encoded letter is not the letter), no trailing, doubled or leading extra slash, only the
 * request's path in origin form (what comes before '?'). A parameter takes one segment of path
 * characters; its decoded value may not hold a slash or a backslash, be a dot segment, or be
 * badly encoded, since the path would then mean another path to some reader of it.
 */
export class RouteTable {
  private readonly compiled: Compiled[];

  constructor(readonly routes: readonly RouteDef[]) {
    const compiled = routes.map(compile);
    // A literal segment wins over a parameter at the first segment where they differ
    // (/repositories/duplicates before /repositories/{id}), as express-openapi-validator orders them.
    this.compiled = compiled.sort((a, b) => compareRanks(a.ranks, b.ranks));
    const seen = new Set<string>();
    for (const c of this.compiled) {
      const key = `${c.def.method} ${c.def.path.replace(/\{[^}]+\}/g, '{}')}`;
      if (seen.has(key)) throw new Error(`Route ${c.def.method.toUpperCase()} ${c.def.path} is declared twice.`);
      seen.add(key);
    }
  }

  /** `target` is the request target as received (req.url): path and query, undecoded. */
  resolve(method: string, target: string): Resolution {
    const path = pathOf(target);
    const m = method.toLowerCase();
    let otherMethod = false;
    for (const c of this.compiled) {
      const found = c.regex.exec(path);
      if (!found) continue;
      const params = decodeParams(c.names, found.slice(1));
      if (!params) continue;
      if (c.def.method === m) return { kind: 'route', route: c.def, params };
      otherMethod = true;
    }
    return otherMethod ? { kind: 'other-method' } : { kind: 'none' };
  }
}

/** The path of a request target, up to '?' (an absolute-form target keeps its scheme and host, so it matches no route). */
export function pathOf(target: string): string {
  const q = target.indexOf('?');
  return q < 0 ? target : target.slice(0, q);
}

function compile(def: RouteDef): Compiled {
  const names: string[] = [];
  const ranks: number[] = [];
  const segments = def.path.split('/').slice(1).map((segment) => {
    const parts = segment.split(/(\{[^}]+\})/).filter(Boolean);
    const params = parts.filter((p) => p.startsWith('{')).length;
    ranks.push(params === 0 ? 0 : parts.length > params ? 1 : 2);
    return parts.map((p) => {
      if (!p.startsWith('{')) return escape(p);
      names.push(p.slice(1, -1));
      return `(${PCHAR}+)`;
    }).join('');
  });
  return { def, regex: new RegExp(`^${escape(API_BASE)}/${segments.join('/')}$`), names, ranks };
}

function decodeParams(names: string[], raw: string[]): Record<string, string> | null {
  const params: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) {
    let value: string;
    try {
      value = decodeURIComponent(raw[i]);
    } catch {
      return null;
    }
    if (value === '.' || value === '..' || /[/\\]/.test(value)) return null;
    params[names[i]] = value;
  }
  return params;
}

/** Per segment: 0 a literal, 1 a parameter with literal text beside it, 2 a parameter alone. */
function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
