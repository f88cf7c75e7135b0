import { sha256Hex } from '../../domain/shared/digest';
import { Database } from '../../infrastructure/db/database';
import { parseBuildSbom } from '../../infrastructure/parsers/cyclonedx';
import { CommandHandler, RequestContext } from '../command-handler';
import { Principal } from '../identity/principal';
import { IdGenerator } from '../ports/ids';
import { ImportAccess } from './import-access';
import { HttpRefusal } from './refusal';
import { mediaType, parsed, parts, statedBuild } from './report-rules';
import { streams } from '../../domain/shared/streams';

const JSON_TYPES = ['application/vnd.cyclonedx+json', 'application/json'];
const XML_TYPES = ['application/vnd.cyclonedx+xml', 'application/xml', 'text/xml'];
/** Bounded by the parser, with the control characters refused (issue #17). */
export { COMPONENT_FIELD_MAX } from '../../infrastructure/parsers/cyclonedx';

type Row = Record<string, any>;

/** A build component as the inventory reads it. */
export interface InventoryComponent {
  name: string;
  version: string | null;
  purl: string | null;
  type: string;
  bomRef: string | null;
  source: 'build' | 'scanner' | 'both';
}

/**
 * POST /repositories/{id}/build-sbom-imports (spec 1 §4.3 "Build SBOM rules"): CycloneDX JSON 1.4
 * to 1.6, strictly schema-valid, 1 to 50,000 components. The components are kept (build_sbom_components,
 * source build) to complete the scanner's inventory of the stated branch's scans, or of every
 * branch when none is stated; the document is kept by its SHA-256 only.
 */
export class BuildSbomImportService {
  constructor(private readonly db: Database, private readonly access: ImportAccess, private readonly commands: CommandHandler, private readonly ids: IdGenerator) {}

  async import(ctx: RequestContext, principal: Principal, repositoryId: number, body: Buffer, query: Record<string, unknown>, contentType: string | undefined) {
    const source = await this.access.check(ctx, principal, 'sbom', repositoryId);
    const type = mediaType(contentType);
    if (XML_TYPES.includes(type)) throw new HttpRefusal(400, 'CycloneDX XML is not accepted; send CycloneDX JSON 1.4 to 1.6 as application/vnd.cyclonedx+json.');
    if (!JSON_TYPES.includes(type)) throw new HttpRefusal(400, `A build SBOM is CycloneDX JSON 1.4 to 1.6 sent as application/vnd.cyclonedx+json, not ${type || 'without a content type'}.`);
    const build = statedBuild(query);
    const sbom = await parsed(() => parseBuildSbom(body));
    const id = await this.ids.next('build_sbom_import');
    const sha256 = sha256Hex(body);
    const answer = { id, components: sbom.components.length, specVersion: sbom.specVersion, sha256 };
    let first = 0;
    const listed = parts(sbom.components).map((components) => {
      const event = { type: 'BuildSbomComponentsListed', data: { id, repositoryId, branch: build.branch, first, components } };
      first += components.length;
      return event;
    });
    await this.commands.appendAll([{
      stream: streams.buildSbomImport(id), expectedRevision: 'no_stream',
      events: [
        {
          type: 'BuildSbomImportAccepted',
          data: {
            ...answer, repositoryId, sourceSlug: source.slug, accountId: principal.accountId, apiKeyId: principal.keyId, commit: build.commit, branch: build.branch,
            audit: 'BUILD_SBOM_IMPORTED',
          },
        },
        ...listed,
      ],
    }], ctx);
    return answer;
  }

  /** The latest 50 build SBOM imports of a repository, newest first. */
  async history(repositoryId: number) {
    const rows: Row[] = await this.db.knex('build_sbom_imports').where({ repository_id: repositoryId }).orderBy('id', 'desc').limit(50);
    return rows.map(view);
  }

  /** One import with its components in document order. */
  async get(repositoryId: number, importId: number) {
    const row: Row | undefined = await this.db.knex('build_sbom_imports').where({ repository_id: repositoryId, id: importId }).first();
    if (!row) throw new HttpRefusal(404, `No build SBOM import ${importId} on repository ${repositoryId}.`);
    return { ...view(row), componentList: await this.components(importId) };
  }

  /**
   * The build components that complete the inventory of a scan of `branch` (S1.4.3-56, -57): those
   * of the newest build SBOM stated for that branch or for no branch; none when there is none.
   */
  async inventoryFor(repositoryId: number, branch: string): Promise<{ importId: number | null; components: InventoryComponent[] }> {
    const newest: Row | undefined = await this.db.knex('build_sbom_imports').where({ repository_id: repositoryId })
      .andWhere((q) => q.where({ branch }).orWhereNull('branch')).orderBy('id', 'desc').first('id');
    if (!newest) return { importId: null, components: [] };
    return { importId: Number(newest.id), components: await this.components(Number(newest.id)) };
  }

  private async components(importId: number): Promise<InventoryComponent[]> {
    const rows: Row[] = await this.db.knex('build_sbom_components').where({ import_id: importId }).orderBy('ordinal')
      .select('name', 'version', 'purl', 'type', 'bom_ref', 'source');
    return rows.map((r) => ({ name: r.name, version: r.version ?? null, purl: r.purl ?? null, type: r.type, bomRef: r.bom_ref ?? null, source: r.source }));
  }
}

function view(r: Row) {
  return {
    id: Number(r.id), source: r.source_slug, accountId: Number(r.account_id), specVersion: r.spec_version, components: Number(r.components),
    commit: r.commit ?? null, branch: r.branch ?? null, sha256: r.sha256, createdAt: r.created_at,
  };
}
