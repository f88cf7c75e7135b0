import { PackageList, type RawCoverage } from './coverage-model';
import { refuse } from './import-refusal';
import { intAttribute, readXml, type XmlAttributes } from './xml';

/**
 * JaCoCo XML. Totals are the report's own LINE and BRANCH counters (the <counter> children of
 * <report>); packages are each <package> element with its own counters (S1.4.3-45), wherever
 * it sits (directly under <report> or inside <group> modules). Line and method detail is not
 * read: the counters already sum it. A report without a report-level LINE counter (an empty
 * report, or a hand-written one with only INSTRUCTION counters) counts no line and is refused.
 * JaCoCo does not name its version in the report, so toolVersion is null.
 */

const WHAT = 'JaCoCo report';

interface Counters {
  lineMissed: number;
  lineCovered: number;
  branchMissed: number;
  branchCovered: number;
}

const zero = (): Counters => ({ lineMissed: 0, lineCovered: 0, branchMissed: 0, branchCovered: 0 });

function addCounter(target: Counters, attributes: XmlAttributes): void {
  const type = attributes.type;
  if (type !== 'LINE' && type !== 'BRANCH') return;
  const missed = intAttribute(attributes, 'missed', WHAT) ?? 0;
  const covered = intAttribute(attributes, 'covered', WHAT) ?? 0;
  if (type === 'LINE') {
    target.lineMissed += missed;
    target.lineCovered += covered;
  } else {
    target.branchMissed += missed;
    target.branchCovered += covered;
  }
}

export function readJacoco(body: Buffer): RawCoverage {
  const report = zero();
  const packages = new PackageList();
  const path: string[] = [];
  // The package being read: its name, depth and counters.
  let current: { name: string; depth: number; counters: Counters } | null = null;

  readXml(body, WHAT, {
    open(name, attributes, depth) {
      if (depth === 0 && name !== 'report') {
        refuse(`The body is not a JaCoCo report: its root element is <${name}>, not <report>.`);
      }
      if (name === 'package' && current === null) current = { name: attributes.name ?? '', depth, counters: zero() };
      if (name === 'counter') {
        const parent = path[path.length - 1];
        if (depth === 1 && parent === 'report') addCounter(report, attributes);
        else if (current && depth === current.depth + 1) addCounter(current.counters, attributes);
      }
      path.push(name);
    },
    close(name, depth) {
      path.pop();
      if (current && name === 'package' && depth === current.depth) {
        const c = current.counters;
        packages.add(current.name, c.lineCovered, c.lineMissed + c.lineCovered, c.branchCovered, c.branchMissed + c.branchCovered);
        current = null;
      }
    },
  });

  return {
    linesCovered: report.lineCovered,
    linesTotal: report.lineMissed + report.lineCovered,
    branchesCovered: report.branchCovered,
    branchesTotal: report.branchMissed + report.branchCovered,
    toolVersion: null,
    packages: packages.packages,
    packageCount: packages.count,
  };
}
