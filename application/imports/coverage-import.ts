import type { CoverageFormat } from '../../domain/imports/reports';
import { sha256Hex } from '../../domain/shared/digest';
import { streams } from '../../domain/shared/streams';
import { CommandHandler, RequestContext } from '../command-handler';
import { Principal } from '../identity/principal';
import { IdGenerator } from '../ports/ids';
import { ImportAccess } from './import-access';
import { ReportParsers } from './ports';
import { HttpRefusal } from './refusal';
import { mediaType, parsed, parts, statedBuild } from './report-rules';

const FORMATS: readonly CoverageFormat[] = ['jacoco', 'cobertura', 'lcov'];
/** Content types per declared format (spec 1 §4.3): XML for JaCoCo and Cobertura, text for lcov. */
const CONTENT_TYPES: Record<CoverageFormat, readonly string[]> = {
  jacoco: ['application/xml', 'text/xml'], cobertura: ['application/xml', 'text/xml'], lcov: ['text/plain'],
};

/**
 * POST /repositories/{id}/coverage-imports (spec 1 §2.6, §4.3): the pipeline declares the format
 * (never guessed); the figures are kept with the commit and branch as stated, the document by its
 * SHA-256 only. Per-package counters are kept when they add up to the totals (packagesState kept),
 * spread over continuation events when they are long.
 */
export class CoverageImportService {
  constructor(private readonly access: ImportAccess, private readonly commands: CommandHandler, private readonly ids: IdGenerator, private readonly parsers: ReportParsers) {}

  async import(ctx: RequestContext, principal: Principal, repositoryId: number, body: Buffer, query: Record<string, unknown>, contentType: string | undefined) {
    const source = await this.access.check(ctx, principal, 'coverage', repositoryId);
    const format = query.format;
    if (format === undefined || format === '') {
      throw new HttpRefusal(400, 'Declare the report\'s format with ?format=jacoco, cobertura or lcov; it is never guessed.');
    }
    if (typeof format !== 'string' || !(FORMATS as readonly string[]).includes(format)) {
      throw new HttpRefusal(400, `The format ${JSON.stringify(String(format).slice(0, 40))} is not one of jacoco, cobertura, lcov.`);
    }
    const declared = format as CoverageFormat;
    const type = mediaType(contentType);
    if (!CONTENT_TYPES[declared].includes(type)) {
      throw new HttpRefusal(400, `A ${declared} report is sent as ${CONTENT_TYPES[declared][0]}, not ${type || 'without a content type'}.`);
    }
    const build = statedBuild(query);
    const figures = await parsed(() => this.parsers.coverage(declared, body));
    const id = await this.ids.next('coverage_import');
    const sha256 = sha256Hex(body);
    const [first, ...rest] = figures.packages === null ? [null] : parts(figures.packages);
    const answer = {
      id, linesCovered: figures.linesCovered, linesTotal: figures.linesTotal, branchesCovered: figures.branchesCovered, branchesTotal: figures.branchesTotal,
      toolVersion: figures.toolVersion, commit: build.commit, branch: build.branch, packagesState: figures.packagesState, sha256,
    };
    await this.commands.appendAll([{
      stream: streams.coverageImport(id), expectedRevision: 'no_stream',
      events: [
        {
          type: 'CoverageImportAccepted',
          data: {
            ...answer, repositoryId, sourceSlug: source.slug, accountId: principal.accountId, apiKeyId: principal.keyId, format: declared,
            packages: first, packageParts: 1 + rest.length, audit: 'COVERAGE_IMPORTED',
          },
        },
        ...rest.map((packages, i) => ({ type: 'CoveragePackagesContinued', data: { id, part: i + 2, packages } })),
      ],
    }], ctx);
    return answer;
  }
}
