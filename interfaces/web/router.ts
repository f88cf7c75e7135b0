/**
 * Routes live after '#' (#/targets, #/issues/7?tab=history): the server declares only `/` and the
 * built files, and a reload or a bookmark never asks it for another path (ADR 0020).
 */
import { useEffect, useState } from 'preact/hooks';

export interface Location { path: string[]; query: URLSearchParams }

function current(): Location {
  const raw = location.hash.replace(/^#/, '') || '/';
  const [p, q = ''] = raw.split('?');
  return { path: p.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(q) };
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const on = () => setLoc(current());
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return loc;
}

/** `#/a/b?x=1`: the href of an in-app link; empty query values are left out. */
export function href(path: string, query: Record<string, string | number | undefined | null> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return `#${path}${s ? `?${s}` : ''}`;
}

export function go(path: string, query: Record<string, string | number | undefined | null> = {}): void {
  location.hash = href(path, query);
}
