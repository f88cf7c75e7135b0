import { assertNever, Decider, DomainEvent, refuse } from '../shared/decider';
import { importToolKey } from '../backlog/issue';
import { width } from '../shared/column-widths';
import { characters, firstRefused, grouped } from '../shared/text';

/**
 * A declared internal source (spec 1 §2.5): a pipeline that deposits SARIF, coverage, test
 * reports or a build SBOM with one integration key. One stream per slug (`source-<slug>`): a
 * slug declared again with a new key rotates the key and the backlog continues under the slug.
 *
 *   state     Declare        Disable   Enable    Remove
 *   none      → enabled      404       404       404
 *   enabled   → rotate/update → disabled  (no-op) → removed
 *   disabled  → rotate/update  (no-op)  → enabled → removed
 *   removed   → enabled (declared anew; its issues stayed under the slug)
 */
export const SOURCE_KINDS = ['sarif', 'coverage', 'test_report', 'sbom'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];
export type SourceState = 'none' | 'enabled' | 'disabled' | 'removed';

export interface SourceDefinition {
  id: number;
  slug: string;
  name: string;
  apiKeyId: number;
  projectId: number | null;
  repositoryId: number | null;
  kinds: SourceKind[];
  tools: string[];
}

export type SourceEvent =
  | DomainEvent<'SourceDeclared', SourceDefinition & { siem: { signature: 'VGL-SEC-022' } }>
  | DomainEvent<'SourceRedeclared', SourceDefinition & { previousApiKeyId: number; siem: { signature: 'VGL-SEC-022' } }>
  | DomainEvent<'SourceDisabled', { id: number; slug: string; siem: { signature: 'VGL-SEC-022' } }>
  | DomainEvent<'SourceEnabled', { id: number; slug: string; siem: { signature: 'VGL-SEC-022' } }>
  | DomainEvent<'SourceRemoved', { id: number; slug: string; siem: { signature: 'VGL-SEC-022' } }>;

export type SourceCommand =
  | { type: 'DeclareSource'; id: number; slug: string; name: string; apiKeyId: number; projectId?: number | null; repositoryId?: number | null; kinds?: string[]; tools?: string[] }
  | { type: 'DisableSource' }
  | { type: 'EnableSource' }
  | { type: 'RemoveSource' };

export interface SourceStreamState {
  state: SourceState;
  definition: SourceDefinition | null;
}

export const sourceTransitions: Record<SourceState, readonly SourceCommand['type'][]> = {
  none: ['DeclareSource'],
  enabled: ['DeclareSource', 'DisableSource', 'EnableSource', 'RemoveSource'],
  disabled: ['DeclareSource', 'DisableSource', 'EnableSource', 'RemoveSource'],
  removed: ['DeclareSource'],
};

export const SLUG_PATTERN = /^[a-z0-9][a-z0-9._-]{0,99}$/;
const SIEM = { signature: 'VGL-SEC-022' } as const;

function definitionOf(c: Extract<SourceCommand, { type: 'DeclareSource' }>, id: number): SourceDefinition {
  const slug = (c.slug ?? '').trim().toLowerCase();
  if (!SLUG_PATTERN.test(slug)) throw refuse.invalid('slug has 1 to 100 lowercase letters, digits, dots, underscores or hyphens, starting with a letter or digit.');
  const name = (c.name ?? '').trim();
  if (!name || characters(name) > width('sarif_sources.name') || firstRefused(name, 'line')) {
    throw refuse.invalid(`name has 1 to ${width('sarif_sources.name')} characters, without control characters.`);
  }
  const projectId = c.projectId ?? null;
  const repositoryId = c.repositoryId ?? null;
  if ((projectId === null) === (repositoryId === null)) throw refuse.invalid('Name exactly one of project_id or repository_id: a source never covers the whole estate.');
  const kinds = c.kinds === undefined ? ['sarif'] : c.kinds;
  if (!Array.isArray(kinds) || kinds.length === 0) throw refuse.invalid('kinds needs at least one of sarif, coverage, test_report, sbom.');
  const unknown = kinds.filter((k) => !(SOURCE_KINDS as readonly string[]).includes(k));
  if (unknown.length) throw refuse.invalid(`Unknown kind ${unknown.map((k) => `"${k}"`).join(', ')}; kinds are sarif, coverage, test_report, sbom.`);
  const tools = (c.tools ?? []).map((t) => String(t).trim()).filter(Boolean);
  tools.forEach((tool, i) => {
    if (firstRefused(tool, 'line')) throw refuse.invalid(`tools[${i}] holds a control character; a tool's name has none.`);
    // A run of the tool files its issues under import:<slug>/<tool> (issues.tool_key).
    const key = importToolKey(slug, tool);
    if (characters(key) > width('issues.tool_key')) {
      throw refuse.invalid(`tools[${i}] is too long for slug "${slug}": its issues' tool key import:<slug>/<tool> would be ${grouped(characters(key))} characters; at most ${grouped(width('issues.tool_key'))}.`);
    }
  });
  if (kinds.includes('sarif') && tools.length === 0) throw refuse.invalid('tools is required when kinds has sarif: name the tools whose runs this source may deliver.');
  if (!kinds.includes('sarif') && c.tools !== undefined) throw refuse.invalid('tools is refused on a source that delivers no SARIF.');
  return { id, slug, name, apiKeyId: c.apiKeyId, projectId, repositoryId, kinds: [...new Set(kinds as SourceKind[])], tools: [...new Set(tools)] };
}

export const sourceDecider: Decider<SourceCommand, SourceEvent, SourceStreamState> = {
  initialState: () => ({ state: 'none', definition: null }),
  decide(command, s) {
    if (!sourceTransitions[s.state].includes(command.type)) throw refuse.notFound('No such source.');
    switch (command.type) {
      case 'DeclareSource': {
        // A slug keeps its first id: the backlog continues under it.
        const def = definitionOf(command, s.definition?.id ?? command.id);
        if (s.state === 'none') return [{ type: 'SourceDeclared', data: { ...def, siem: SIEM } }];
        return [{ type: 'SourceRedeclared', data: { ...def, previousApiKeyId: s.definition!.apiKeyId, siem: SIEM } }];
      }
      case 'DisableSource':
        return s.state === 'disabled' ? [] : [{ type: 'SourceDisabled', data: { id: s.definition!.id, slug: s.definition!.slug, siem: SIEM } }];
      case 'EnableSource':
        return s.state === 'enabled' ? [] : [{ type: 'SourceEnabled', data: { id: s.definition!.id, slug: s.definition!.slug, siem: SIEM } }];
      case 'RemoveSource':
        return [{ type: 'SourceRemoved', data: { id: s.definition!.id, slug: s.definition!.slug, siem: SIEM } }];
      default:
        return assertNever(command);
    }
  },
  evolve(s, e) {
    switch (e.type) {
      case 'SourceDeclared':
      case 'SourceRedeclared': {
        const { siem: _siem, ...def } = e.data;
        const { previousApiKeyId: _p, ...definition } = def as SourceDefinition & { previousApiKeyId?: number };
        return { state: 'enabled', definition };
      }
      case 'SourceDisabled': return { ...s, state: 'disabled' };
      case 'SourceEnabled': return { ...s, state: 'enabled' };
      case 'SourceRemoved': return { ...s, state: 'removed' };
      default: return assertNever(e);
    }
  },
};

/** Kind-to-scope (spec 1 §2.5). */
export function scopeForKind(kind: SourceKind): 'sarif_import' | 'report_import' {
  return kind === 'sarif' ? 'sarif_import' : 'report_import';
}
