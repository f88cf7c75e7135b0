/** Shapes shared by the coverage readers (kept apart so the readers do not import coverage.ts). */
import type { PackageFigures } from '../../domain/imports/reports';

export type { CoverageFigures, CoverageFormat, PackageFigures, PackagesState } from '../../domain/imports/reports';

/** What a format reader hands back before the package rules are applied. */
export interface RawCoverage {
  linesCovered: number;
  linesTotal: number;
  branchesCovered: number;
  branchesTotal: number;
  toolVersion: string | null;
  /** The packages seen, at most MAX_PACKAGES of them; packageCount counts them all. */
  packages: PackageFigures[];
  packageCount: number;
}

export const MAX_PACKAGES = 10_000;
export const MAX_PACKAGE_PATH = 1_000;

/** Branch figures: a report that counted no branch says so with null, never 0 of 0. */
export function branchPair(covered: number, total: number): { branchesCovered: number | null; branchesTotal: number | null } {
  return total > 0 ? { branchesCovered: covered, branchesTotal: total } : { branchesCovered: null, branchesTotal: null };
}

/** Collects packages; past MAX_PACKAGES it only counts them (the state will be too_many). */
export class PackageList {
  readonly packages: PackageFigures[] = [];
  count = 0;

  add(name: string, linesCovered: number, linesTotal: number, branchesCovered: number, branchesTotal: number): void {
    this.count++;
    if (this.count > MAX_PACKAGES) return;
    this.packages.push({ name, linesCovered, linesTotal, ...branchPair(branchesCovered, branchesTotal) });
  }
}
