import type {
  BuildSbom, CoverageFigures, CoverageFormat, SarifParseResult, TestReportContentType, TestReportFigures,
} from '../../domain/imports/reports';
import type { SourceKind } from '../../domain/sources/source';

/**
 * The bounded readers of uploaded reports (infrastructure/parsers/report-parsers.ts). Each throws
 * ImportRefusal (domain/imports) for a document it will not accept: 400 for a content rule, 413
 * for a size guard.
 */
export interface ReportParsers {
  sarif(body: Buffer): SarifParseResult;
  coverage(format: CoverageFormat, body: Buffer): CoverageFigures;
  /** One JUnit XML document, or a zip of them inflated under the zip guards. */
  testReport(body: Buffer, contentType: TestReportContentType): Promise<TestReportFigures>;
  buildSbom(body: Buffer): BuildSbom;
}

/** The enabled source an integration key names, as the import rules read it. */
export interface EnabledSource {
  slug: string;
  project_id: number | null;
  repository_id: number | null;
  kindList: SourceKind[];
  toolList: string[];
}

/** The declared sources, by the key an import comes with (the sources context answers). */
export interface EnabledSources {
  enabledForKey(apiKeyId: number): Promise<EnabledSource | null>;
}

/** A repository as the import rules need it: its id and project (the source's scope, the caller's visibility). */
export interface ImportRepository {
  id: number;
  project_id: number | null;
}

/** Repositories by id, whoever may see them (projections/imports/import-repositories.ts). */
export interface ImportRepositories {
  find(id: number): Promise<ImportRepository | null>;
}
