import { PackageList, type RawCoverage } from './coverage-model';
import { refuse } from './import-refusal';
import { decodeUnicodeText } from './text';

/**
 * lcov tracefiles (geninfo, Istanbul, gcovr, llvm-cov, cargo-llvm-cov, coverlet...).
 * Per SF record: LF/LH and BRF/BRH when written (summary-only records carry nothing else);
 * otherwise the DA lines (distinct line numbers, covered when a count is > 0) and BRDA branches.
 * Counts are validated: a negative or garbage count ("DA:4,-3", "1.a0e+19") refuses the report
 * rather than producing silently wrong coverage. Unknown record types (FNL, FNA, MCDC, VER...)
 * and comment lines are ignored; a line that is not an lcov record at all means the body is not
 * lcov. Packages are the directories holding SF files (S1.4.3-47). Records repeating one SF
 * (several test names, repeated runs) are merged as lcov merges tracefiles, never summed.
 * lcov names no tool version.
 */

const RECORD = /^([A-Za-z_]+):(.*)$/;
const COUNT = /^\d+(?:\.\d+)?(?:[eE][+]?\d+)?$/;
const INTEGER = /^\d+$/;

interface FileRecord {
  lf?: number;
  lh?: number;
  brf?: number;
  brh?: number;
  /** line number -> covered; branch "line,block,branch" -> taken (unions when an SF repeats). */
  lines: Map<string, boolean>;
  branches: Map<string, boolean>;
  records: number;
}

const union = (m: Map<string, boolean>, key: string, hit: boolean): void => {
  m.set(key, (m.get(key) ?? false) || hit);
};
const hits = (m: Map<string, boolean>): number => {
  let n = 0;
  for (const hit of m.values()) if (hit) n++;
  return n;
};

/**
 * Figures of one file. A single record: its LF/LH and BRF/BRH, else its DA and BRDA lines.
 * A file several records repeat (one per test name; Istanbul appends a record per run) is
 * merged the way lcov merges tracefiles: the union of its DA and BRDA lines, or, for
 * summary-only records, the largest summary.
 */
function figuresOf(r: FileRecord): { lc: number; lt: number; bc: number; bt: number } {
  const single = r.records === 1;
  const lt = (single ? r.lf : undefined) ?? (r.lines.size > 0 ? r.lines.size : r.lf ?? 0);
  const lc = (single ? r.lh : undefined) ?? (r.lines.size > 0 ? hits(r.lines) : r.lh ?? 0);
  const bt = (single ? r.brf : undefined) ?? (r.branches.size > 0 ? r.branches.size : r.brf ?? 0);
  const bc = (single ? r.brh : undefined) ?? (r.branches.size > 0 ? hits(r.branches) : r.brh ?? 0);
  return { lc, lt, bc, bt };
}

export function readLcov(body: Buffer): RawCoverage {
  const text = decodeUnicodeText(body, 'lcov report');
  const files = new Map<string, FileRecord>();
  let record: FileRecord | null = null;
  let recordPath = '';
  let recordStart = 0;

  const fail: (n: number, why: string) => never = (n, why) => refuse(`The lcov report's line ${n} ${why}.`);
  /** Largest value seen for one summary field of a file. */
  const summary = (r: FileRecord, key: 'lf' | 'lh' | 'brf' | 'brh', value: number): void => {
    r[key] = Math.max(r[key] ?? 0, value);
  };
  const seen = { lf: -1, lh: -1, brf: -1, brh: -1 };
  const close = (): void => {
    if (!record) return;
    if ((seen.lf >= 0 && seen.lh > seen.lf) || (seen.brf >= 0 && seen.brh > seen.brf)) {
      refuse(`The lcov record for "${recordPath}" (line ${recordStart}) counts more covered than coverable lines or branches.`);
    }
    for (const key of ['lf', 'lh', 'brf', 'brh'] as const) if (seen[key] >= 0) summary(record, key, seen[key]);
    record = null;
  };
  const open = (path: string, n: number): void => {
    close();
    recordPath = path;
    recordStart = n;
    seen.lf = seen.lh = seen.brf = seen.brh = -1;
    const key = path.replace(/\\/g, '/');
    record = files.get(key) ?? { lines: new Map(), branches: new Map(), records: 0 };
    record.records++;
    files.set(key, record);
  };

  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    const n = i + 1;
    if (line === '' || line.startsWith('#')) continue;
    if (line === 'end_of_record') {
      close();
      continue;
    }
    const m = RECORD.exec(line);
    if (!m) fail(n, 'is not an lcov record, so the body is not readable as lcov');
    const [, key, value] = m;
    if (key === 'SF') {
      open(value, n);
      continue;
    }
    if (!record) continue; // TN: and other preamble records outside a file
    const r: FileRecord = record;
    switch (key) {
      case 'LF':
      case 'LH':
      case 'BRF':
      case 'BRH': {
        if (!INTEGER.test(value)) fail(n, `has ${key}:${value}, which is not a whole non-negative number`);
        seen[key.toLowerCase() as 'lf' | 'lh' | 'brf' | 'brh'] = Number(value);
        break;
      }
      case 'DA': {
        // DA:<line>,<count>[,<checksum>]
        const [lineNo, count] = value.split(',');
        if (!INTEGER.test(lineNo ?? '') || !COUNT.test(count ?? '')) fail(n, `has DA:${value}, which is not a line number and a non-negative count`);
        union(r.lines, lineNo, Number(count) > 0);
        break;
      }
      case 'BRDA': {
        // BRDA:<line>,<block>,<branch>,<taken or ->
        const parts = value.split(',');
        const taken = parts[3];
        if (taken === undefined || (taken !== '-' && !COUNT.test(taken))) fail(n, `has BRDA:${value}, whose taken count is not "-" or a non-negative number`);
        union(r.branches, parts.slice(0, 3).join(','), taken !== '-' && Number(taken) > 0);
        break;
      }
      default:
        break; // FN, FNDA, FNF, FNH, FNL, FNA, VER, MCDC... carry nothing the import records
    }
  }
  close();

  const totals = { lc: 0, lt: 0, bc: 0, bt: 0 };
  const byDirectory = new Map<string, { lc: number; lt: number; bc: number; bt: number }>();
  for (const [path, r] of files) {
    const f = figuresOf(r);
    if (f.lc > f.lt || f.bc > f.bt) refuse(`The lcov report counts more covered than coverable lines or branches for "${path}".`);
    const slash = path.lastIndexOf('/');
    const directory = slash < 0 ? '' : path.slice(0, slash);
    const entry = byDirectory.get(directory) ?? { lc: 0, lt: 0, bc: 0, bt: 0 };
    for (const t of [entry, totals]) {
      t.lc += f.lc;
      t.lt += f.lt;
      t.bc += f.bc;
      t.bt += f.bt;
    }
    byDirectory.set(directory, entry);
  }
  const packages = new PackageList();
  for (const [name, t] of byDirectory) packages.add(name, t.lc, t.lt, t.bc, t.bt);
  return {
    linesCovered: totals.lc,
    linesTotal: totals.lt,
    branchesCovered: totals.bc,
    branchesTotal: totals.bt,
    toolVersion: null,
    packages: packages.packages,
    packageCount: packages.count,
  };
}
