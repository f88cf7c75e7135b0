import { NextFunction, Request, Response } from 'express';
import { problem } from './problem';
import { VigilRequest } from './route';

/**
 * Defence in depth behind the route schemas (interfaces/http/text.ts): no string of a parsed JSON
 * body or of the query, value or key, at any depth, may hold U+0000. PostgreSQL text cannot store
 * it, so an event carrying one fails its projection forever (issue #17); this refuses it for every
 * route, including one whose schema forgot a string. 400 naming the JSON path, before anything is
 * read or written. Raw uploads (Buffers) are the parsers' business.
 */
export function refuseNul(req: Request, _res: Response, next: NextFunction): void {
  if ((req as VigilRequest).route_?.screensOwnText) return next();
  const found = nulPath('body', req.body) ?? nulPath('query', req.query);
  if (found) return next(problem.badRequest(`The request is not valid: ${found} holds a control character (U+0000, NUL); no text accepts NUL, and single-line text no control characters at all.`));
  next();
}

/** The path of the first string (or key) holding U+0000, walked without recursion (a body may nest deeply). */
export function nulPath(root: string, value: unknown): string | null {
  const stack: Array<[string, unknown]> = [[root, value]];
  while (stack.length) {
    const [path, v] = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return path;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([`${path}[${i}]`, v[i]]);
    } else if (v !== null && typeof v === 'object' && !Buffer.isBuffer(v)) {
      const keys = Object.keys(v);
      for (const key of keys) if (key.includes('\u0000')) return `${path} key ${JSON.stringify(key)}`;
      for (let i = keys.length - 1; i >= 0; i--) stack.push([`${path}${member(keys[i])}`, (v as Record<string, unknown>)[keys[i]]]);
    }
  }
  return null;
}

const member = (key: string) => (/^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`);
