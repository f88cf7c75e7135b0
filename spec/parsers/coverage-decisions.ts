import type { Verdict } from './support';

/**
 * The coverage corpus decisions and the figures computed independently of the parser, shared by
 * the parser spec and the import spec over HTTP (not a spec file itself).
 */

/** Verdicts the manifest leaves to the importer, settled by the spec. */
export const DECISIONS: Record<string, { verdict: Verdict; why: string; pattern?: RegExp }> = {
  'coverage/jacoco/madrapps__empty-report.jacoco.xml': { verdict: 'refuse', why: 'S1.4.3-36: no line, never zero', pattern: /counts no line/ },
  'coverage/jacoco/madrapps__group-with-group.jacoco.xml': { verdict: 'refuse', why: 'S1.4.3-36: only an INSTRUCTION counter, no line', pattern: /counts no line/ },
  'coverage/jacoco/madrapps__only-line-attrs.jacoco.xml': { verdict: 'refuse', why: 'S1.4.3-36: no LINE counter', pattern: /counts no line/ },
  'coverage/lcov/coveralls__empty-0byte.lcov': { verdict: 'refuse', why: 'S1.4.3-36: empty', pattern: /counts no line/ },
  'coverage/lcov/lcov__malformed-counts.info': { verdict: 'refuse', why: 'S1.4.3-13: negative and garbage counts', pattern: /DA:4,-3/ },
  'coverage/cobertura/cobertura-action__istanbul.cobertura.xml': { verdict: 'accept', why: 'S1.4.3-50: classes outside packages make packages inconsistent' },
  'coverage/cobertura/codacy__decimal-comma.cobertura.xml': { verdict: 'accept', why: 'rates are not read; figures are recomputed from the lines' },
  'coverage/cobertura/coveralls__sbt-scoverage.cobertura.xml': { verdict: 'refuse', why: 'S1.4.3-13: not well-formed', pattern: /line 781/ },
};

// ---- Independent figures, from the report text by regular expressions, not by the parser ----
export const attr = (tag: string, name: string): string | undefined => new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1];

/** JaCoCo: the counters written directly before </report>. */
export function jacocoTotals(text: string): { lines: [number, number] | null; branches: [number, number] | null } {
  const tail = /((?:<counter\b[^>]*\/>\s*)+)<\/report>\s*$/.exec(text)?.[1] ?? '';
  const get = (type: string): [number, number] | null => {
    const tag = (tail.match(/<counter\b[^>]*\/>/g) ?? []).find((t) => attr(t, 'type') === type);
    return tag ? [Number(attr(tag, 'covered')), Number(attr(tag, 'missed')) + Number(attr(tag, 'covered'))] : null;
  };
  return { lines: get('LINE'), branches: get('BRANCH') };
}

/** Cobertura: <line> elements outside <methods> blocks, covered when hits is not 0. */
export function coberturaTotals(text: string): { lc: number; lt: number; bc: number; bt: number } {
  const classLines = (text.replace(/<methods>[\s\S]*?<\/methods>/g, '').match(/<line\b[^>]*>/g) ?? []);
  let lc = 0, bc = 0, bt = 0;
  for (const tag of classLines) {
    if (Number((attr(tag, 'hits') ?? '0').replace(',', '.')) > 0) lc++;
    const m = /\((\d+)\/(\d+)\)/.exec(attr(tag, 'condition-coverage') ?? '');
    if (m) {
      bc += Number(m[1]);
      bt += Number(m[2]);
    }
  }
  return { lc, lt: classLines.length, bc, bt };
}

/**
 * A Cobertura report rewritten so that every class lists its lines only under its methods, as
 * some producers write them: the class-level lines are split between two methods, the second
 * listing the first one's last line again (two methods sharing a line), and the class keeps no
 * <lines> of its own. Counting once per line number, the figures are the original class lines'.
 */
export function linesUnderMethodsOnly(text: string): string {
  return text.replace(/<class\b(?:[^>]*[^/>])?>[\s\S]*?<\/class>/g, (cls) => {
    const bare = cls.replace(/<methods\b[^>]*>[\s\S]*?<\/methods>|<methods\s*\/>/g, '');
    const block = /<lines>([\s\S]*?)<\/lines>/.exec(bare);
    if (!block) return cls;
    const lines = block[1].match(/<line\b[^>]*\/>|<line\b[^>]*>[\s\S]*?<\/line>/g) ?? [];
    const half = Math.ceil(lines.length / 2);
    const first = lines.slice(0, half);
    const second = [...first.slice(-1), ...lines.slice(half)];
    const method = (name: string, listed: string[]) => `<method name="${name}" signature="()V" line-rate="0" branch-rate="0"><lines>${listed.join('')}</lines></method>`;
    return bare.replace(block[0], () => `<methods>${method('first', first)}${method('second', second)}</methods>`);
  });
}

/** lcov: per SF (the last record of a repeated file), LF/LH or counted DA lines; BRF/BRH likewise. */
export function lcovTotals(text: string): { lc: number; lt: number; bc: number; bt: number; dirs: number } {
  const files = new Map<string, number[]>();
  for (const record of text.split(/end_of_record/)) {
    const sf = /^SF:(.*)$/m.exec(record)?.[1]?.trim();
    if (!sf) continue;
    const num = (k: string): number | undefined => {
      const m = new RegExp(`^${k}:(\\d+)\\s*$`, 'm').exec(record);
      return m ? Number(m[1]) : undefined;
    };
    const da = record.match(/^DA:\d+,[^,\s]+/gm) ?? [];
    const brda = record.match(/^BRDA:.*$/gm) ?? [];
    files.set(sf.replace(/\\/g, '/'), [
      num('LH') ?? da.filter((d) => Number(d.split(',')[1]) > 0).length,
      num('LF') ?? da.length,
      num('BRH') ?? brda.filter((b) => /,\d*[1-9]\d*\s*$/.test(b)).length,
      num('BRF') ?? brda.length,
    ]);
  }
  const sum = (i: number): number => [...files.values()].reduce((n, f) => n + f[i], 0);
  const dirs = new Set([...files.keys()].map((f) => (f.includes('/') ? f.slice(0, f.lastIndexOf('/')) : '')));
  return { lc: sum(0), lt: sum(1), bc: sum(2), bt: sum(3), dirs: dirs.size };
}

export const pair = (covered: number, total: number): [number | null, number | null] => (total > 0 ? [covered, total] : [null, null]);
