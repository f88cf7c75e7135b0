/** The page for each #route: a path pattern (':name' takes one segment) and what it shows. */
import type { ComponentChildren } from 'preact';
import type { Me } from '../session';
import { GateVerdicts, Scans } from './activity';
import { Admin } from './admin';
import { AuditLog } from './audit';
import { Backlog, Exceptions } from './backlog';
import { Estate } from './estate';
import { IssuePage } from './issue';
import { TargetPage, Targets } from './targets';

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
  page('/targets', (p) => <Targets {...p} />),
  page('/repositories/:id', (p) => <TargetPage {...p} kind="repositories" params={{ ...p.params, kind: 'repositories' }} />),
  page('/containers/:id', (p) => <TargetPage {...p} kind="containers" params={{ ...p.params, kind: 'containers' }} />),
  page('/issues', (p) => <Backlog {...p} />),
  page('/issues/:id', (p) => <IssuePage {...p} />),
  page('/exceptions', (p) => <Exceptions {...p} />),
  page('/scans', (p) => <Scans {...p} />),
  page('/gate', (p) => <GateVerdicts {...p} />),
  page('/audit', (p) => <AuditLog {...p} />),
  page('/admin', (p) => <Admin {...p} />),
  page('/admin/:section', (p) => <Admin {...p} />),
];
