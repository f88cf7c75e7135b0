import { Type } from '@sinclair/typebox';
import { RouteDef, takeBody, VigilRequest } from '../route';
import { RowId } from '../row-id';
import { Services } from '../services';

type ReportImporter = Pick<Services['coverageImports'] | Services['testReportImports'] | Services['buildSbomImports'], 'import'>;

const RepoId = Type.Object({ id: RowId() });
const ImportId = Type.Object({ id: RowId(), importId: RowId() });
// Checked by the import itself, after the key and source (so that a refused key is told 403 and audited first).
const commit = Type.Optional(Type.String({ description: 'The commit the pipeline built, hexadecimal (1 to 64 digits); kept as stated, verified against nothing' }));
const branch = Type.Optional(Type.String({ description: 'The branch the pipeline built, as stated (1 to 255 characters)' }));
const refusals = {
  400: { description: 'Undeclared or unknown format, body not readable as it, bad commit or branch' },
  403: { description: 'Not an integration key, no enabled source for the key, no scope report_import, or a kind the source does not declare (audited, VGL-SEC-027)' },
  404: { description: 'Repository unseen or outside the key\'s restriction or the source\'s scope' },
};

/** Coverage, test-report and build-SBOM imports from declared sources (spec 1 §2.6, §4.3, §7, §8.1). */
export function reportImportRoutes(s: Services): RouteDef[] {
  const visible = (req: VigilRequest) => s.targets.visibleRow(req.principal!, 'repository', Number(req.params.id));
  // One POST handler for the three kinds: the body is taken off the request (takeBody), so that
  // up to 32 MB are not kept alive until the answer is sent.
  const accept = (service: ReportImporter): RouteDef['handler'] => async (req, res) => {
    const result = await service.import(req.ctx!, req.principal!, Number(req.params.id), takeBody(req), req.query, req.headers['content-type']);
    res.status(201);
    return result;
  };
  return [
    {
      method: 'post', path: '/repositories/{id}/coverage-imports', tag: 'Imports',
      summary: 'Import a coverage report (integration key, scope report_import, source kind coverage); format declared: jacoco and cobertura as application/xml, lcov as text/plain',
      auth: { handlerDecides: true }, params: RepoId, bodyLimit: 'coverageImport', rawBody: ['application/xml', 'text/xml', 'text/plain'],
      query: Type.Object({ format: Type.Optional(Type.String({ description: 'Required: jacoco, cobertura or lcov; never guessed' })), commit, branch }),
      responses: {
        201: { description: 'Accepted: id, linesCovered, linesTotal, branchesCovered, branchesTotal (null when the report counted no branch), toolVersion, commit, branch, packagesState, sha256' },
        ...refusals, 413: { description: 'Over VIGIL_MAX_BODY_COVERAGE_IMPORT (16 MB)' },
      },
      handler: accept(s.coverageImports),
    },
    {
      method: 'post', path: '/repositories/{id}/test-report-imports', tag: 'Imports',
      summary: 'Import a JUnit test report (integration key, scope report_import, source kind test_report): one XML document, or a zip of them (5,000 entries, 32 MB each, 256 MB in all, no nested archive)',
      auth: { handlerDecides: true }, params: RepoId, bodyLimit: 'testReportImport', rawBody: ['application/xml', 'text/xml', 'application/zip'],
      query: Type.Object({ commit, branch }),
      responses: {
        201: { description: 'Accepted: id, documents, suites, tests, failures, errors, skipped, sha256 (the document itself is never kept)' },
        ...refusals, 413: { description: 'Over VIGIL_MAX_BODY_TEST_REPORT_IMPORT (32 MB)' },
      },
      handler: accept(s.testReportImports),
    },
    {
      method: 'post', path: '/repositories/{id}/build-sbom-imports', tag: 'Imports',
      summary: 'Import a build\'s CycloneDX JSON SBOM, 1.4 to 1.6, 1 to 50,000 components (integration key, scope report_import, source kind sbom); a stated branch limits it to that branch\'s scans; XML is refused',
      auth: { handlerDecides: true }, params: RepoId, bodyLimit: 'sbomImport',
      rawBody: ['application/vnd.cyclonedx+json', 'application/json', 'application/vnd.cyclonedx+xml', 'application/xml', 'text/xml', 'application/spdx+json'],
      query: Type.Object({ commit, branch }),
      responses: {
        201: { description: 'Accepted: id, components, specVersion, sha256' },
        ...refusals, 413: { description: 'Over VIGIL_MAX_BODY_SBOM_IMPORT (32 MB)' },
      },
      handler: accept(s.buildSbomImports),
    },
    // The readable records of each kind: the latest 50, and one with its details. The query module is
    // looked up when a request comes (route definitions are read without services, e.g. by specs).
    ...([
      ['coverage-imports', 'coverage imports', 'its per-package counters (kept only when they add up to the totals)', () => s.importQueries.coverage],
      ['test-report-imports', 'test-report imports', "each suite's totals", () => s.importQueries.testReport],
      ['build-sbom-imports', 'build SBOM imports', 'its components (source build, scanner or both)', () => s.importQueries.buildSbom],
    ] as const).flatMap(([segment, noun, details, queriesOf]): RouteDef[] => [
      {
        method: 'get', path: `/repositories/{id}/${segment}`, tag: 'Imports', summary: `The latest 50 ${noun} of a repository, newest first`, auth: { scope: 'read' }, params: RepoId,
        responses: { 200: { description: 'Imports' }, 404: { description: 'Repository unseen' } },
        handler: async (req) => { await visible(req); return queriesOf().history(Number(req.params.id)); },
      },
      {
        method: 'get', path: `/repositories/{id}/${segment}/{importId}`, tag: 'Imports', summary: `One of the ${noun} with ${details}`, auth: { scope: 'read' }, params: ImportId,
        responses: { 200: { description: 'Import' }, 404: { description: 'Repository unseen or no such import' } },
        handler: async (req) => { await visible(req); return queriesOf().get(Number(req.params.id), Number(req.params.importId)); },
      },
    ]),
  ];
}
