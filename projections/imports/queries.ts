import { refuse } from '../../domain/shared/decider';
import { Database } from '../../infrastructure/db/database';
import { SarifImportQueries } from './sarif-import-queries';

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

/** The readable records of one kind of report import: the latest 50 of a repository, and one with its details. */
export interface ImportRecordQueries {
  history(repositoryId: number): Promise<unknown[]>;
  get(repositoryId: number, importId: number): Promise<unknown>;
}

/** GET /repositories/{id}/coverage-imports[/{importId}] over `coverage_imports`. */
export class CoverageImportQueries implements ImportRecordQueries {
  constructor(private readonly db: Database) {}

  /** The latest 50 coverage imports of a repository, newest first (without the per-package counters). */
  async history(repositoryId: number) {
    const rows: Row[] = await this.db.knex('coverage_imports').where({ repository_id: repositoryId }).orderBy('id', 'desc').limit(50)
      .select('id', 'source_slug', 'account_id', 'format', 'lines_covered', 'lines_total', 'branches_covered', 'branches_total', 'tool_version', 'commit', 'branch', 'packages_state', 'sha256', 'created_at');
    return rows.map(coverageView);
  }

  /** One import with its per-package counters (null unless packagesState is kept). */
  async get(repositoryId: number, importId: number) {
    const row: Row | undefined = await this.db.knex('coverage_imports').where({ repository_id: repositoryId, id: importId }).first();
    if (!row) throw refuse.notFound(`No coverage import ${importId} on repository ${repositoryId}.`);
    return { ...coverageView(row), packages: row.packages ? JSON.parse(row.packages) : null };
  }
}

/** GET /repositories/{id}/test-report-imports[/{importId}] over `test_report_imports`. */
export class TestReportImportQueries implements ImportRecordQueries {
  constructor(private readonly db: Database) {}

  /** The latest 50 test-report imports of a repository, newest first (without each suite's totals). */
  async history(repositoryId: number) {
    const rows: Row[] = await this.db.knex('test_report_imports').where({ repository_id: repositoryId }).orderBy('id', 'desc').limit(50)
      .select('id', 'source_slug', 'account_id', 'documents', 'suites', 'tests', 'failures', 'errors', 'skipped', 'commit', 'branch', 'sha256', 'created_at');
    return rows.map(testReportView);
  }

  /** One import with each suite's totals. */
  async get(repositoryId: number, importId: number) {
    const row: Row | undefined = await this.db.knex('test_report_imports').where({ repository_id: repositoryId, id: importId }).first();
    if (!row) throw refuse.notFound(`No test-report import ${importId} on repository ${repositoryId}.`);
    return { ...testReportView(row), suiteTotals: JSON.parse(row.suite_totals) };
  }
}

/** GET /repositories/{id}/build-sbom-imports[/{importId}] over `build_sbom_imports` and `build_sbom_components`, and the inventory they complete. */
export class BuildSbomImportQueries implements ImportRecordQueries {
  constructor(private readonly db: Database) {}

  /** The latest 50 build SBOM imports of a repository, newest first. */
  async history(repositoryId: number) {
    const rows: Row[] = await this.db.knex('build_sbom_imports').where({ repository_id: repositoryId }).orderBy('id', 'desc').limit(50);
    return rows.map(buildSbomView);
  }

  /** One import with its components in document order. */
  async get(repositoryId: number, importId: number) {
    const row: Row | undefined = await this.db.knex('build_sbom_imports').where({ repository_id: repositoryId, id: importId }).first();
    if (!row) throw refuse.notFound(`No build SBOM import ${importId} on repository ${repositoryId}.`);
    return { ...buildSbomView(row), componentList: await this.components(importId) };
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

/** The imports' read side, one member per kind of import record (Services.importQueries). */
export interface ImportQueries {
  sarif: SarifImportQueries;
  coverage: CoverageImportQueries;
  testReport: TestReportImportQueries;
  buildSbom: BuildSbomImportQueries;
}

export function importQueriesOf(db: Database): ImportQueries {
  return { sarif: new SarifImportQueries(db), coverage: new CoverageImportQueries(db), testReport: new TestReportImportQueries(db), buildSbom: new BuildSbomImportQueries(db) };
}

const orNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function coverageView(r: Row) {
  return {
    id: Number(r.id), source: r.source_slug, accountId: Number(r.account_id), format: r.format,
    linesCovered: Number(r.lines_covered), linesTotal: Number(r.lines_total), branchesCovered: orNull(r.branches_covered), branchesTotal: orNull(r.branches_total),
    toolVersion: r.tool_version ?? null, commit: r.commit ?? null, branch: r.branch ?? null, packagesState: r.packages_state ?? null, sha256: r.sha256, createdAt: r.created_at,
  };
}

function testReportView(r: Row) {
  return {
    id: Number(r.id), source: r.source_slug, accountId: Number(r.account_id), documents: Number(r.documents), suites: Number(r.suites), tests: Number(r.tests),
    failures: Number(r.failures), errors: Number(r.errors), skipped: Number(r.skipped), commit: r.commit ?? null, branch: r.branch ?? null, sha256: r.sha256, createdAt: r.created_at,
  };
}

function buildSbomView(r: Row) {
  return {
    id: Number(r.id), source: r.source_slug, accountId: Number(r.account_id), specVersion: r.spec_version, components: Number(r.components),
    commit: r.commit ?? null, branch: r.branch ?? null, sha256: r.sha256, createdAt: r.created_at,
  };
}
