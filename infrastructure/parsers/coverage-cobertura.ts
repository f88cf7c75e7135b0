import { PackageList, type RawCoverage } from './coverage-model';
import { bounded, refuse } from './import-refusal';
import { width } from '../../domain/shared/column-widths';
import { readXml } from './xml';

/**
 * Cobertura XML (Cobertura itself, coverage.py, gcovr, coverlet, Istanbul, ReportGenerator...).
 * Figures are counted from the <line> elements of each class (class > lines > line), never from
 * the rate or *-valid attributes: producers get those wrong (locale decimal commas, summaries
 * that disagree with the lines), and method-level <lines> repeat class lines. A line is covered
 * when hits > 0; branches come from condition-coverage="50% (1/2)". Packages are each <package>
 * counted from the lines of its classes (S1.4.3-46); classes written outside any <package>
 * (an Istanbul variant) still count in the totals, which then makes the packages inconsistent.
 * toolVersion is the root's version attribute when present.
 */

const WHAT = 'Cobertura report';
const HITS = /^\s*\d+(?:[.,]\d+)?(?:[eE][+-]?\d+)?\s*$/;
const CONDITIONS = /\((\d+)\s*\/\s*(\d+)\)/;

interface Tally {
  lc: number;
  lt: number;
  bc: number;
  bt: number;
}

export function readCobertura(body: Buffer): RawCoverage {
  const totals: Tally = { lc: 0, lt: 0, bc: 0, bt: 0 };
  const packages = new PackageList();
  const path: string[] = [];
  let toolVersion: string | null = null;
  let current: { name: string; depth: number; tally: Tally } | null = null;

  readXml(body, WHAT, {
    open(name, attributes, depth) {
      if (depth === 0) {
        if (name !== 'coverage') refuse(`The body is not a Cobertura report: its root element is <${name}>, not <coverage>.`);
        const version = attributes.version?.trim() || null;
        toolVersion = version === null ? null : bounded(WHAT, 'the version attribute of <coverage>', version, width('coverage_imports.tool_version'));
      }
      if (name === 'package' && current === null) current = { name: attributes.name ?? '', depth, tally: { lc: 0, lt: 0, bc: 0, bt: 0 } };
      if (name === 'line' && path[path.length - 1] === 'lines' && path[path.length - 2] === 'class') {
        const hits = attributes.hits;
        if (hits === undefined || !HITS.test(hits)) {
          refuse(`The Cobertura report has a line (number ${attributes.number ?? '?'}) whose hits "${hits ?? ''}" is not a non-negative number.`);
        }
        const covered = Number(hits.replace(',', '.')) > 0 ? 1 : 0;
        const m = CONDITIONS.exec(attributes['condition-coverage'] ?? '');
        const bc = m ? Number(m[1]) : 0;
        const bt = m ? Number(m[2]) : 0;
        for (const t of current ? [totals, current.tally] : [totals]) {
          t.lt += 1;
          t.lc += covered;
          t.bc += bc;
          t.bt += bt;
        }
      }
      path.push(name);
    },
    close(name, depth) {
      path.pop();
      if (current && name === 'package' && depth === current.depth) {
        const t = current.tally;
        packages.add(current.name, t.lc, t.lt, t.bc, t.bt);
        current = null;
      }
    },
  });

  return {
    linesCovered: totals.lc,
    linesTotal: totals.lt,
    branchesCovered: totals.bc,
    branchesTotal: totals.bt,
    toolVersion,
    packages: packages.packages,
    packageCount: packages.count,
  };
}
