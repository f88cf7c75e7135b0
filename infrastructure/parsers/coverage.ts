import { refuse } from './import-refusal';
import { branchPair, MAX_PACKAGE_PATH, MAX_PACKAGES, type CoverageFigures, type CoverageFormat, type PackagesState, type RawCoverage } from './coverage-model';
import { readCobertura } from './coverage-cobertura';
import { readJacoco } from './coverage-jacoco';
import { readLcov } from './coverage-lcov';

/**
 * Coverage uploads (spec §2.6 import records, §4.3 "Coverage and test-report rules").
 * The format is declared by the pipeline and never guessed (S1.4.3-13): each reader checks that
 * the body really is its format and refuses it otherwise.
 */

export type { CoverageFigures, CoverageFormat, PackageFigures, PackagesState } from './coverage-model';

export function parseCoverage(format: CoverageFormat, body: Buffer): CoverageFigures {
  let raw: RawCoverage;
  if (format === 'jacoco') raw = readJacoco(body);
  else if (format === 'cobertura') raw = readCobertura(body);
  else if (format === 'lcov') raw = readLcov(body);
  else refuse(`The coverage format "${String(format)}" is not one of jacoco, cobertura, lcov.`);
  return finish(raw, format);
}

const LABEL: Record<CoverageFormat, string> = { jacoco: 'JaCoCo', cobertura: 'Cobertura', lcov: 'lcov' };

function finish(raw: RawCoverage, format: CoverageFormat): CoverageFigures {
  if (raw.linesTotal <= 0) {
    refuse(`The ${LABEL[format]} report counts no line; an empty coverage report is refused rather than recorded as zero.`);
  }
  if (raw.linesCovered > raw.linesTotal || raw.branchesCovered > raw.branchesTotal) {
    refuse(`The ${LABEL[format]} report counts more covered than coverable lines or branches.`);
  }
  const packagesState = stateOf(raw);
  return {
    linesCovered: raw.linesCovered,
    linesTotal: raw.linesTotal,
    ...branchPair(raw.branchesCovered, raw.branchesTotal),
    toolVersion: raw.toolVersion,
    packages: packagesState === 'kept' ? raw.packages : null,
    packagesState,
  };
}

// C0, DEL and C1: the control characters a stored text never holds (domain/shared/text.ts, issue #17).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** §4.3: too_many over 10,000; path_refused over 1,000 characters or a control character; inconsistent when sums differ. */
function stateOf(raw: RawCoverage): PackagesState {
  if (raw.packageCount > MAX_PACKAGES) return 'too_many';
  if (raw.packages.some((p) => p.name.length > MAX_PACKAGE_PATH || CONTROL.test(p.name))) return 'path_refused';
  let lc = 0, lt = 0, bc = 0, bt = 0;
  for (const p of raw.packages) {
    lc += p.linesCovered;
    lt += p.linesTotal;
    bc += p.branchesCovered ?? 0;
    bt += p.branchesTotal ?? 0;
  }
  const adds = lc === raw.linesCovered && lt === raw.linesTotal && bc === raw.branchesCovered && bt === raw.branchesTotal;
  return adds ? 'kept' : 'inconsistent';
}
