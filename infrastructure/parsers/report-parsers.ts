import type { ReportParsers } from '../../application/imports/ports';
import { parseCoverage } from './coverage';
import { parseBuildSbom } from './cyclonedx';
import { DEFAULT_ZIP_LIMITS, parseTestReport } from './junit';
import { parseSarif } from './sarif';

/** The upload parsers behind the imports' port; zips under the default guards (5,000 entries, 32 MB each, 256 MB in all). */
export const reportParsers: ReportParsers = {
  sarif: (body) => parseSarif(body),
  coverage: (format, body) => parseCoverage(format, body),
  testReport: (body, contentType) => parseTestReport(body, contentType, DEFAULT_ZIP_LIMITS),
  buildSbom: (body) => parseBuildSbom(body),
};
