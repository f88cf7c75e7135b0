import { SourceKind, scopeForKind } from '../../domain/sources/source';
import { streams } from '../../domain/shared/streams';
import { CommandHandler, RequestContext } from '../command-handler';
import { missingScopeDetail, Principal } from '../identity/principal';
import { VisibilityReader } from '../identity/visibility';
import { EnabledSource, EnabledSources, ImportRepositories } from './ports';
import { HttpRefusal } from './refusal';

export type { EnabledSource } from './ports';

/**
 * The rules every import obeys (spec 1 §4.3 "Rules for all imports", §7 import table): an
 * integration key, not an auditor's, holding the kind's scope and naming an enabled source that
 * declares the kind (403 otherwise, audited with VGL-SEC-023 for SARIF and VGL-SEC-027 for the
 * others); a repository inside the key's restriction and the source's scope (404, the same answer
 * as an unknown repository).
 */
export class ImportAccess {
  constructor(
    private readonly visibilities: VisibilityReader,
    private readonly sources: EnabledSources,
    private readonly repositories: ImportRepositories,
    private readonly commands: CommandHandler,
  ) {}

  async check(ctx: RequestContext, principal: Principal, kind: SourceKind, repositoryId: number): Promise<EnabledSource> {
    const refused = async (reason: string): Promise<never> => {
      await this.audit(ctx, kind, reason, principal, repositoryId);
      throw new HttpRefusal(403, reason);
    };
    if (principal.kind !== 'key') return refused('An import takes an integration key, not a session.');
    const scope = scopeForKind(kind);
    // The auditor rule first: an auditor's key has lost the import scopes too (effective scopes,
    // issue #17), and "not an auditor's" is the reason a person can act on.
    if (principal.roles.includes('auditor')) return refused("An import key must not come from an auditor's account.");
    if (!principal.scopes?.includes(scope)) return refused(missingScopeDetail(principal, scope));
    const source = await this.sources.enabledForKey(principal.keyId!);
    if (!source) return refused('This key names no enabled source; a platform governor declares one (POST /sarif-sources).');
    if (!source.kindList.includes(kind)) return refused(`Source "${source.slug}" does not declare kind ${kind}.`);
    const repo = await this.repositories.find(repositoryId);
    const visibility = await this.visibilities.of(principal);
    const inScope = repo && (source.repository_id !== null ? Number(source.repository_id) === repositoryId : Number(repo.project_id) === Number(source.project_id));
    if (!repo || !visibility.canSee('repository', repo) || !inScope) throw new HttpRefusal(404, `No repository ${repositoryId} is visible to you.`);
    return source;
  }

  /** A refused import, audited with its SIEM signature: a record of its own on the refusals' stream. */
  async audit(ctx: RequestContext, kind: SourceKind, reason: string, principal: Principal, repositoryId: number): Promise<void> {
    const sarif = kind === 'sarif';
    await this.commands.appendAll([{
      stream: streams.importRefusals, expectedRevision: 'any',
      events: [{
        type: sarif ? 'SarifImportRefused' : 'ReportImportRefused',
        data: {
          kind, reason, repositoryId, accountId: principal.accountId, apiKeyId: principal.keyId,
          audit: sarif ? 'SARIF_IMPORT_REFUSED' : 'REPORT_IMPORT_REFUSED',
          siem: { signature: sarif ? 'VGL-SEC-023' : 'VGL-SEC-027' },
        },
      }],
    }], ctx);
  }
}
