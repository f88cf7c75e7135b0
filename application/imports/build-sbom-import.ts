import { sha256Hex } from '../../domain/shared/digest';
import { streams } from '../../domain/shared/streams';
import { CommandHandler, RequestContext } from '../command-handler';
import { Principal } from '../identity/principal';
import { IdGenerator } from '../ports/ids';
import { ImportAccess } from './import-access';
import { ReportParsers } from './ports';
import { HttpRefusal } from './refusal';
import { mediaType, parsed, parts, statedBuild } from './report-rules';

const JSON_TYPES = ['application/vnd.cyclonedx+json', 'application/json'];
const XML_TYPES = ['application/vnd.cyclonedx+xml', 'application/xml', 'text/xml'];
/**
 * POST /repositories/{id}/build-sbom-imports (spec 1 §4.3 "Build SBOM rules"): CycloneDX JSON 1.4
 * to 1.6, strictly schema-valid, 1 to 50,000 components. The components are kept (build_sbom_components,
 * source build) to complete the scanner's inventory of the stated branch's scans, or of every
 * branch when none is stated; the document is kept by its SHA-256 only.
 */
export class BuildSbomImportService {
  constructor(private readonly access: ImportAccess, private readonly commands: CommandHandler, private readonly ids: IdGenerator, private readonly parsers: ReportParsers) {}

  async import(ctx: RequestContext, principal: Principal, repositoryId: number, body: Buffer, query: Record<string, unknown>, contentType: string | undefined) {
    const source = await this.access.check(ctx, principal, 'sbom', repositoryId);
    const type = mediaType(contentType);
    if (XML_TYPES.includes(type)) throw new HttpRefusal(400, 'CycloneDX XML is not accepted; send CycloneDX JSON 1.4 to 1.6 as application/vnd.cyclonedx+json.');
    if (!JSON_TYPES.includes(type)) throw new HttpRefusal(400, `A build SBOM is CycloneDX JSON 1.4 to 1.6 sent as application/vnd.cyclonedx+json, not ${type || 'without a content type'}.`);
    const build = statedBuild(query);
    const sbom = await parsed(() => this.parsers.buildSbom(body));
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
}
