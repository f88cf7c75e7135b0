/** What POST /api/v1/gate answers (spec 1 §2.8, §4.1), as far as the client reads it. */
export interface Violation {
  rule: string;
  reason: string;
  issueId?: number;
  identifier?: string;
  severity?: string;
  package?: string | null;
  path?: string;
  line?: number;
}

export interface GateVerdict {
  id?: number;
  targetKind?: string;
  targetId?: number;
  passed: boolean;
  violations: Violation[];
  policy?: Record<string, unknown>;
  at?: string;
}

/** What a report needs besides the verdict: which target was asked about, and how the exit code reads it. */
export interface ReportContext {
  targetLabel: string;
  advisory: boolean;
  /** The Vigil asked (https://vigil.example/api/v1), for links back. */
  url: string;
  version: string;
}

export const EXIT = { passed: 0, failed: 1, notAsked: 2, advisoryFailed: 3 } as const;

export function exitCodeOf(verdict: GateVerdict, advisory: boolean): number {
  if (verdict.passed) return EXIT.passed;
  return advisory ? EXIT.advisoryFailed : EXIT.failed;
}

/** A short name for a violation: the identifier and package of a finding, the rule of a target-wide one. */
export function titleOf(v: Violation): string {
  if (v.identifier === undefined) return v.rule;
  return v.package ? `${v.identifier} in ${v.package}` : v.identifier;
}
