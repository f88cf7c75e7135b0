import type { Verdict } from './support';

type Json = Record<string, any>;

/**
 * Expected verdicts the manifest notes leave open, or that the spec settles against the note:
 * SARIF manifest notes say whether a log is valid SARIF, not whether Vigil's content rules
 * (§4.3) accept it.
 */
export const DECISIONS: Record<string, { verdict: Verdict; why: string; pattern?: RegExp }> = {
  'sarif/eslint/eslint-8.25.0.sarif': { verdict: 'refuse', why: 'S1.4.3-26: absolute file:/// URIs are URLs', pattern: /is a URL/ },
  'sarif/pmd/pmd-multiple-locations.sarif': { verdict: 'refuse', why: 'S1.4.3-26: file://notAvailable.ext is a URL', pattern: /is a URL/ },
  'sarif/dependency-check/dependency-check-6.1.2.sarif': { verdict: 'refuse', why: 'S1.4.3-26: absolute file:/// URIs', pattern: /is a URL/ },
  'scanners/grype/grype__sarif-dir.golden.sarif': { verdict: 'refuse', why: 'S1.4.3-24: absolute /some/path locations', pattern: /absolute path/ },
  'sarif/flawfinder/flawfinder-2.0.19.sarif': { verdict: 'refuse', why: 'S1.4.3-32: externalPropertyFileReferences', pattern: /external property files/ },
  'sarif/pmd/pmd-processing-error.sarif': { verdict: 'refuse', why: 'S1.4.3-22: executionSuccessful false', pattern: /failed execution/ },
  'sarif/spotbugs/spotbugs-4.4.0.sarif': { verdict: 'refuse', why: 'S1.4.3-22: executionSuccessful false despite 56 results', pattern: /failed execution/ },
  'sarif/sarif-tutorials/catastrophic-execution-error.sarif': { verdict: 'refuse', why: 'S1.4.3-22', pattern: /failed execution/ },
  'sarif/sarif-tutorials/one-run-no-results.sarif': { verdict: 'refuse', why: 'S1.4.3-21: no results array', pattern: /no results array/ },
  'sarif/binskim/binskim-native-x86-vs2013.sarif': { verdict: 'accept', why: 'S1.4.3-30: pass results are simply not findings' },
  'sarif/fortify-fpr/fortify-fpr-one-result.sarif': { verdict: 'accept', why: 'S1.4.3-23: the rule is named by ruleIndex' },
  'sarif/gosec/gosec-dev-gh-app-auth.sarif': { verdict: 'accept', why: 'a null fixes[].artifactChanges breaks no content rule' },
};

/** Independent count: a plain walk over the JSON, not the parser's code. */
export function independent(text: string): { results: number; findings: number[]; tools: string[] } {
  const doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  return {
    results: doc.runs.reduce((n: number, r: Json) => n + r.results.length, 0),
    findings: doc.runs.map(
      (r: Json) =>
        r.results.filter(
          (x: Json) =>
            x.kind !== 'pass' &&
            x.kind !== 'notApplicable' &&
            !(x.suppressions ?? []).some((s: Json) => s.status === undefined || s.status === 'accepted'),
        ).length,
    ),
    tools: doc.runs.map((r: Json) => {
      const d = r.tool.driver;
      const v = d.semanticVersion ?? d.version;
      return v === undefined ? d.name : `${d.name} ${String(v).replace(/,/g, ';')}`;
    }),
  };
}

