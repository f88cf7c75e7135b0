import { sha256Hex } from '../../domain/shared/digest';
import { RecordedEvent } from '../../domain/shared/event-envelope';
import { Projection } from '../engine/projection';
import { RowWriter } from '../engine/row-writer';

/**
 * The coverage, test-report and build-SBOM import records (spec 1 §2.6) and the build SBOMs'
 * components. Long lists (per-package counters, suite totals, components) arrive over several
 * events of the import's stream; the JSON columns are assembled from them, the components are
 * one row each.
 */
type Handler = (w: RowWriter, e: RecordedEvent<any>, batch: BatchState) => Promise<unknown> | void;

/** Lists being assembled in this batch: table/id -> items so far. */
type BatchState = Map<string, unknown[]>;

async function continueList(w: RowWriter, batch: BatchState, table: string, column: string, id: number, more: unknown[]): Promise<void> {
  const key = `${table}/${id}`;
  let list = batch.get(key);
  if (!list) {
    const row = await w.run([table], (trx) => trx(table).where({ id }).first(column));
    list = row?.[column] ? (JSON.parse(row[column]) as unknown[]) : [];
    batch.set(key, list);
  }
  for (const item of more) list.push(item);
  await w.update(table, { id }, { [column]: JSON.stringify(list) });
}

const handlers: Record<string, Handler> = {
  CoverageImportAccepted: (w, e, batch) => {
    const d = e.data;
    if (d.packages) batch.set(`coverage_imports/${d.id}`, [...d.packages]);
    w.insert('coverage_imports', {
      id: d.id, repository_id: d.repositoryId, source_slug: d.sourceSlug, account_id: d.accountId, format: d.format,
      lines_covered: d.linesCovered, lines_total: d.linesTotal, branches_covered: d.branchesCovered, branches_total: d.branchesTotal,
      tool_version: d.toolVersion, commit: d.commit, branch: d.branch, packages_state: d.packagesState,
      packages: d.packages ? JSON.stringify(d.packages) : null, sha256: d.sha256, created_at: e.metadata.at,
    });
  },
  CoveragePackagesContinued: (w, e, batch) => continueList(w, batch, 'coverage_imports', 'packages', e.data.id, e.data.packages),
  TestReportImportAccepted: (w, e, batch) => {
    const d = e.data;
    batch.set(`test_report_imports/${d.id}`, [...d.suiteTotals]);
    w.insert('test_report_imports', {
      id: d.id, repository_id: d.repositoryId, source_slug: d.sourceSlug, account_id: d.accountId, documents: d.documents, suites: d.suites,
      tests: d.tests, failures: d.failures, errors: d.errors, skipped: d.skipped, suite_totals: JSON.stringify(d.suiteTotals),
      commit: d.commit, branch: d.branch, sha256: d.sha256, created_at: e.metadata.at,
    });
  },
  TestReportSuitesContinued: (w, e, batch) => continueList(w, batch, 'test_report_imports', 'suite_totals', e.data.id, e.data.suiteTotals),
  BuildSbomImportAccepted: (w, e) => {
    const d = e.data;
    w.insert('build_sbom_imports', {
      id: d.id, repository_id: d.repositoryId, source_slug: d.sourceSlug, account_id: d.accountId, spec_version: d.specVersion, components: d.components,
      commit: d.commit, branch: d.branch, sha256: d.sha256, created_at: e.metadata.at,
    });
  },
  BuildSbomComponentsListed: (w, e) => {
    const d = e.data;
    d.components.forEach((c: { name: string; version: string | null; purl: string | null; type: string; bomRef: string | null }, i: number) => {
      w.insert('build_sbom_components', {
        import_id: d.id, ordinal: d.first + i, repository_id: d.repositoryId, branch: d.branch, name: c.name, version: c.version, purl: c.purl,
        purl_key: c.purl === null ? null : sha256Hex(c.purl), type: c.type, bom_ref: c.bomRef, source: 'build', scanner_scan_id: null,
      }, ['import_id', 'ordinal']);
    });
  },
};

export const importsProjection: Projection = {
  name: 'imports',
  handles: new Set(Object.keys(handlers)),
  tables: ['coverage_imports', 'test_report_imports', 'build_sbom_imports', 'build_sbom_components'],
  async apply(w, events) {
    const batch: BatchState = new Map();
    for (const e of events) await handlers[e.type](w, e, batch);
  },
};
