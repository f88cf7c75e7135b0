import { PackageList, type RawCoverage } from './coverage-model';
import { bounded, refuse } from './import-refusal';
import { width } from '../../domain/shared/column-widths';
import { readXml, type XmlAttributes } from './xml';

/**
 * Cobertura XML (Cobertura itself, coverage.py, gcovr, coverlet, Istanbul, ReportGenerator...).
 * Figures are counted from the <line> elements of each class (class > lines > line), never from
 * the rate or *-valid attributes: producers get those wrong (locale decimal commas, summaries
 * that disagree with the lines), and method-level <lines> repeat class lines. A class that lists
 * its lines only under its methods (class > methods > method > lines > line, no class-level line)
 * is counted from those, each line number once per class (two methods may list one line: covered
 * when one of them hit it, branches from the listing that counts most conditions). A line is covered
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

/** One <line>: covered or not, and its branch conditions. */
interface LineFigures {
  covered: number;
  bc: number;
  bt: number;
}

/** The class being read: its method lines wait until the class closes, in case it has no class-level line. */
interface OpenClass {
  depth: number;
  hasLines: boolean;
  /** Line number -> the attributes of each listing; a line without a number is its own entry. */
  methodLines: Map<string, XmlAttributes[]>;
}

function lineFigures(attributes: XmlAttributes): LineFigures {
  const hits = attributes.hits;
  if (hits === undefined || !HITS.test(hits)) {
    refuse(`The Cobertura report has a line (number ${attributes.number ?? '?'}) whose hits "${hits ?? ''}" is not a non-negative number.`);
  }
  const m = CONDITIONS.exec(attributes['condition-coverage'] ?? '');
  return { covered: Number(hits.replace(',', '.')) > 0 ? 1 : 0, bc: m ? Number(m[1]) : 0, bt: m ? Number(m[2]) : 0 };
}

/** Several methods listing one line: covered when one hit it, branches from the listing counting most conditions. */
function merged(listings: XmlAttributes[]): LineFigures {
  const lines = listings.map(lineFigures);
  const branches = lines.reduce((best, l) => (l.bt > best.bt || (l.bt === best.bt && l.bc > best.bc) ? l : best));
  return { covered: lines.some((l) => l.covered) ? 1 : 0, bc: branches.bc, bt: branches.bt };
}

export function readCobertura(body: Buffer): RawCoverage {
  const totals: Tally = { lc: 0, lt: 0, bc: 0, bt: 0 };
  const packages = new PackageList();
  const path: string[] = [];
  let toolVersion: string | null = null;
  let current: { name: string; depth: number; tally: Tally } | null = null;
  let openClass: OpenClass | null = null;
  let unnumbered = 0;
  const count = (line: LineFigures): void => {
    for (const t of current ? [totals, current.tally] : [totals]) {
      t.lt += 1;
      t.lc += line.covered;
      t.bc += line.bc;
      t.bt += line.bt;
    }
  };
  const within = (...names: string[]): boolean => names.every((n, i) => path[path.length - names.length + i] === n);

  readXml(body, WHAT, {
    open(name, attributes, depth) {
      if (depth === 0) {
        if (name !== 'coverage') refuse(`The body is not a Cobertura report: its root element is <${name}>, not <coverage>.`);
        const version = attributes.version?.trim() || null;
        toolVersion = version === null ? null : bounded(WHAT, 'the version attribute of <coverage>', version, width('coverage_imports.tool_version'));
      }
      if (name === 'package' && current === null) current = { name: attributes.name ?? '', depth, tally: { lc: 0, lt: 0, bc: 0, bt: 0 } };
      if (name === 'class') openClass = { depth, hasLines: false, methodLines: new Map() };
      if (name === 'line' && within('class', 'lines')) {
        count(lineFigures(attributes));
        if (openClass) openClass.hasLines = true;
      }
      if (name === 'line' && openClass && within('class', 'methods', 'method', 'lines')) {
        const key = attributes.number?.trim() || `unnumbered ${++unnumbered}`;
        const listings = openClass.methodLines.get(key);
        if (listings) listings.push(attributes);
        else openClass.methodLines.set(key, [attributes]);
      }
      path.push(name);
    },
    close(name, depth) {
      path.pop();
      if (openClass && name === 'class' && depth === openClass.depth) {
        // Class-level lines already include the method lines; only a class without them counts its methods'.
        if (!openClass.hasLines) for (const listings of openClass.methodLines.values()) count(merged(listings));
        openClass = null;
      }
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
