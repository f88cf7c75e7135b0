import { sha256Hex } from '../../domain/shared/digest';
import { Database } from '../../infrastructure/db/database';
import { DEFAULT_ZIP_LIMITS, parseTestReport } from '../../infrastructure/parsers/junit';
import { CommandHandler, RequestContext } from '../command-handler';
import { Principal } from '../identity/principal';
import { IdGenerator } from '../ports/ids';
import { ImportAccess } from './import-access';
import { HttpRefusal } from './refusal';
import { mediaType, parsed, parts, statedBuild } from './report-rules';
import { streams } from '../../domain/shared/streams';

type Row = Record<string, any>;

/**
 * POST /repositories/{id}/test-report-imports (spec 1 §2.6, §4.3): one JUnit XML document or a
 * zip of them, inflated in memory under the zip guards (5,000 entries, 32 MB each, 256 MB in all,
 * no nested archive). Only the figures and each suite's totals are kept; the document never is,
 * not even in the event log (S1.2.6-11), only its SHA-256.
 */
export class TestReportImportService {
  constructor(private readonly db: Database, private readonly access: ImportAccess, private readonly commands: CommandHandler, private readonly ids: IdGenerator) {}

  async import(ctx: RequestContext, principal: Principal, repositoryId: number, body: Buffer, query: Record<string, unknown>, contentType: string | undefined) {
    const source = await this.access.check(ctx, principal, 'test_report', repositoryId);
    const type = mediaType(contentType);
    const kind = type === 'application/xml' || type === 'text/xml' ? 'application/xml' : type === 'application/zip' ? 'application/zip' : null;
    if (!kind) throw new HttpRefusal(400, `A test report is sent as application/xml (one JUnit document) or application/zip, not ${type || 'without a content type'}.`);
    const build = statedBuild(query);
    const figures = await parsed(() => parseTestReport(body, kind, DEFAULT_ZIP_LIMITS));
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

  /** The latest 50 test-report imports of a repository, newest first (without each suite's totals). */
  async history(repositoryId: number) {
    const rows: Row[] = await this.db.knex('test_report_imports').where({ repository_id: repositoryId }).orderBy('id', 'desc').limit(50)
      .select('id', 'source_slug', 'account_id', 'documents', 'suites', 'tests', 'failures', 'errors', 'skipped', 'commit', 'branch', 'sha256', 'created_at');
    return rows.map(view);
  }

  /** One import with each suite's totals. */
  async get(repositoryId: number, importId: number) {
    const row: Row | undefined = await this.db.knex('test_report_imports').where({ repository_id: repositoryId, id: importId }).first();
    if (!row) throw new HttpRefusal(404, `No test-report import ${importId} on repository ${repositoryId}.`);
    return { ...view(row), suiteTotals: JSON.parse(row.suite_totals) };
  }
}

function view(r: Row) {
  return {
    id: Number(r.id), source: r.source_slug, accountId: Number(r.account_id), documents: Number(r.documents), suites: Number(r.suites), tests: Number(r.tests),
    failures: Number(r.failures), errors: Number(r.errors), skipped: Number(r.skipped), commit: r.commit ?? null, branch: r.branch ?? null, sha256: r.sha256, createdAt: r.created_at,
  };
}
