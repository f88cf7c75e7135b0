import type { Severity } from '../gate/severity';

/**
 * What the pipelines' reports say once read (spec 1 §2.6, §4.3): the shapes the upload parsers
 * (infrastructure/parsers, behind the ReportParsers port) hand to the import services.
 */

// ---- SARIF 2.1.0 --------------------------------------------------------------------------------

export interface SarifFinding {
  ruleId: string;
  /** Relative to the repository root, forward slashes; "" for a repository-level finding. */
  path: string;
  line: number | null;
  severity: Severity;
  message: string;
  fingerprint?: string;
  /** OWASP Top 10 categories the rule's or the result's tags name (domain/backlog/owasp.ts); absent when none. */
  owaspCategories?: string[];
}

export interface SarifRun {
  toolName: string;
  toolVersion: string | null;
  findings: SarifFinding[];
}

export interface SarifParseResult {
  runs: SarifRun[];
  /** Every result object in the log, findings or not (pass, notApplicable, suppressed). */
  resultsCount: number;
}

/** "name version" per run for the import's tools field; a comma in a version becomes ";" (S1.4.3-04). */
export function toolLabel(run: Pick<SarifRun, 'toolName' | 'toolVersion'>): string {
  return run.toolVersion === null ? run.toolName : `${run.toolName} ${run.toolVersion.replace(/,/g, ';')}`;
}

// ---- coverage -----------------------------------------------------------------------------------

export type CoverageFormat = 'jacoco' | 'cobertura' | 'lcov';
export type PackagesState = 'kept' | 'too_many' | 'path_refused' | 'inconsistent';

export interface PackageFigures {
  name: string;
  linesCovered: number;
  linesTotal: number;
  branchesCovered: number | null;
  branchesTotal: number | null;
}

export interface CoverageFigures {
  linesCovered: number;
  linesTotal: number;
  /** null when the report counted no branch: never 0 of 0 (S1.2.6-04). */
  branchesCovered: number | null;
  branchesTotal: number | null;
  toolVersion: string | null;
  /** Kept only when packagesState is kept (S1.2.6-09). */
  packages: PackageFigures[] | null;
  packagesState: PackagesState;
}

// ---- JUnit test reports -------------------------------------------------------------------------

export interface SuiteTotals {
  name: string;
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

export interface TestReportFigures {
  documents: number;
  suites: number;
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  suiteTotals: SuiteTotals[];
}

/** One JUnit XML document, or a zip of them. */
export type TestReportContentType = 'application/xml' | 'application/zip';

// ---- CycloneDX build SBOM -----------------------------------------------------------------------

export type CycloneDxVersion = '1.4' | '1.5' | '1.6';

export interface BuildSbomComponent {
  name: string;
  version: string | null;
  purl: string | null;
  type: string;
  bomRef: string | null;
}

export interface BuildSbom {
  specVersion: CycloneDxVersion;
  components: BuildSbomComponent[];
}
