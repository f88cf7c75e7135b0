/** The page for each #route: a path pattern (':name' takes one segment) and what it shows. */
import type { ComponentChildren } from 'preact';
import type { Me } from '../session';
import { Estate } from './estate';

export interface PageProps { params: Record<string, string>; query: URLSearchParams; me: Me }
export interface PageDef { match: (path: string[]) => Record<string, string> | null; render: (props: PageProps) => ComponentChildren }

function pattern(spec: string): PageDef['match'] {
  const parts = spec.split('/').filter(Boolean);
  return (path) => {
    if (path.length !== parts.length) return null;
    const params: Record<string, string> = {};
    for (let i = 0; i < parts.length; i++) {
      if (parts[i].startsWith(':')) params[parts[i].slice(1)] = path[i];
      else if (parts[i] !== path[i]) return null;
    }
    return params;
  };
}

const page = (spec: string, render: PageDef['render']): PageDef => ({ match: pattern(spec), render });

export const pages: PageDef[] = [
  page('/', (p) => <Estate {...p} />),
];
