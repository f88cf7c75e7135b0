import { expect } from 'chai';
import type { RunningVigil } from './vigil';

/**
 * Every page of a paged list from `path` (a path under /api/v1), following `Link: <...>; rel="next"`
 * as a client would, each page answering 200; stops after `maxPages` (a Link that never ends).
 */
export async function linkPages<T>(v: RunningVigil, path: string, token: string, maxPages = 100): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let next: string | null = path;
  let pages = 0;
  for (; next && pages < maxPages; pages++) {
    const r = await v.request('GET', next, { token });
    expect(r.status, r.text).to.equal(200);
    items.push(...(r.body as T[]));
    const m = /<\/api\/v1([^>]+)>; rel="next"/.exec(r.headers.get('link') ?? '');
    next = m ? m[1] : null;
  }
  return { items, pages };
}
