/** Pure parsers and normalisers for pipeline uploads (spec §4.3). Each throws ImportRefusal (domain/imports); their shapes are domain/imports/reports.ts. */
export { reportParsers } from './report-parsers';
export { normalisePath, parseSarif, type SarifFinding, type SarifParseResult, type SarifRun } from './sarif';
export { parseCoverage, type CoverageFigures, type CoverageFormat, type PackageFigures, type PackagesState } from './coverage';
export { DEFAULT_ZIP_LIMITS, parseTestReport, readJUnitDocument, type SuiteTotals, type TestReportFigures, type ZipLimits } from './junit';
export { CycloneDxValidator, MAX_COMPONENTS, parseBuildSbom, type BuildSbom, type BuildSbomComponent, type CycloneDxVersion } from './cyclonedx';
