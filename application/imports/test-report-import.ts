import { sha256Hex } from '../../domain/shared/digest';
import { streams } from '../../domain/shared/streams';
import { CommandHandler, RequestContext } from '../command-handler';
import { Principal } from '../identity/principal';
import { IdGenerator } from '../ports/ids';
import { ImportAccess } from './import-access';
import { ReportParsers } from './ports';
import { HttpRefusal } from './refusal';
import { mediaType, parsed, parts, statedBuild } from './report-rules';

/**
 * POST /repositories/{id}/test-report-imports (spec 1 §2.6, §4.3): one JUnit XML document or a
 * zip of them, inflated in memory under the zip guards (5,000 entries, 32 MB each, 256 MB in all,
 * no nested archive). Only the figures and each suite's totals are kept; the document never is,
 * not even in the event log (S1.2.6-11), only its SHA-256.
 */
export class TestReportImportService {
  constructor(private readonly access: ImportAccess, private readonly commands: CommandHandler, private readonly ids: IdGenerator, private readonly parsers: ReportParsers) {}

  async import(ctx: RequestContext, principal: Principal, repositoryId: number, body: Buffer, query: Record<string, unknown>, contentType: string | undefined) {
    const source = await this.access.check(ctx, principal, 'test_report', repositoryId);
    const type = mediaType(contentType);
    const kind = type === 'application/xml' || type === 'text/xml' ? 'application/xml' : type === 'application/zip' ? 'application/zip' : null;
    if (!kind) throw new HttpRefusal(400, `A test report is sent as application/xml (one JUnit document) or application/zip, not ${type || 'without a content type'}.`);
    const build = statedBuild(query);
    const figures = await parsed(() => this.parsers.testReport(body, kind));
    const id = await this.ids.next('test_report_import');
    const sha256 = sha256Hex(body);
    // Suite names are bounded by the parser (JUNIT_NAME_MAX).
    const [first, ...rest] = parts(figures.suiteTotals);
    const answer = {
      id, documents: figures.documents, suites: figures.suites, tests: figures.tests, failures: figures.failures, errors: figures.errors, skipped: figures.skipped, sha256,
    };
    await this.commands.appendAll([{
      stream: streams.testReportImport(id), expectedRevision: 'no_stream',
      events: [
        {
          type: 'TestReportImportAccepted',
          data: {
            ...answer, repositoryId, sourceSlug: source.slug, accountId: principal.accountId, apiKeyId: principal.keyId, commit: build.commit, branch: build.branch,
            suiteTotals: first, suiteParts: 1 + rest.length, audit: 'TEST_REPORT_IMPORTED',
          },
        },
        ...rest.map((suiteTotals, i) => ({ type: 'TestReportSuitesContinued', data: { id, part: i + 2, suiteTotals } })),
      ],
    }], ctx);
    return answer;
  }
}
