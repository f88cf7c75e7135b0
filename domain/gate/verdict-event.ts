import type { GatePolicy } from './policy';
import type { Violation, ViolationRule } from './verdict';
import type { DomainEvent } from '../shared/decider';
import type { TargetKind } from '../shared/target-kind';

/**
 * One gate call, one fact (spec 1 §2.8: "every call writes one row in the verdict register").
 * Each verdict is its own stream, appended with no_stream: 32 pipelines gating one target at once
 * never contend on a shared stream's revision (a per-target stream with 'any' would make them).
 */

/** Spec 1 §6 and document 2 §6 (S2.6-31): a failing verdict signals VGL-SEC-003 SECURITY_GATE_FAILED. */
export const GATE_FAILED_SIEM = { signature: 'VGL-SEC-003', name: 'SECURITY_GATE_FAILED' } as const;

/**
 * Violations kept in full in the event (and the register row), in verdict order: observation,
 * kev, severity from critical down, coverage. The rest are counted. A target with 20,000 open
 * criticals would otherwise make a 4 MB event (EVENT-SOURCING trap 7; the store refuses 900 KB).
 * 100 rather than 200 (ADR 0008, amendment of issue #17): every kept violation is written twice
 * per call (event, register row) and read back by the projection; on a target whose verdict lists
 * thousands, 200 put the gate's p99 past its figure under 32 callers, while the answer (all of
 * them) and the register's counts per rule are unchanged.
 */
export const KEPT_VIOLATIONS = 100;

/** The policy as applied (defaults filled in), in the request's own spelling. */
export interface AppliedPolicy {
  include_triaged: boolean;
  fixable_only: boolean;
  severity: string;
  include_plugins: boolean;
  min_line_coverage?: number;
}

export function appliedPolicy(p: GatePolicy): AppliedPolicy {
  return {
    include_triaged: p.includeTriaged, fixable_only: p.fixableOnly, severity: p.severity, include_plugins: p.includePlugins,
    ...(p.minLineCoverage === null ? {} : { min_line_coverage: p.minLineCoverage }),
  };
}

export interface GateVerdictGivenData {
  id: number;
  targetKind: TargetKind;
  targetId: number;
  passed: boolean;
  /** The first KEPT_VIOLATIONS violations, in verdict order. */
  violations: Violation[];
  violationCount: number;
  counts: Record<ViolationRule, number>;
  policy: AppliedPolicy;
  accountId: number;
  /** Null when a signed-in person asked. */
  keyId: number | null;
  at: string;
  /** Present only on a failed verdict; the SIEM export delivers it. */
  siem?: typeof GATE_FAILED_SIEM;
}

/** The register row's violations column (JSON): the kept violations, their total and counts per rule. */
export interface StoredViolations {
  count: number;
  counts: Record<ViolationRule, number>;
  items: Violation[];
}

export type GateVerdictGiven = DomainEvent<'GateVerdictGiven', GateVerdictGivenData>;

export function verdictGiven(input: Omit<GateVerdictGivenData, 'violations' | 'violationCount' | 'counts' | 'siem'> & { violations: readonly Violation[] }): GateVerdictGiven {
  const counts: Record<ViolationRule, number> = { observation: 0, kev: 0, severity: 0, coverage: 0 };
  for (const v of input.violations) counts[v.rule] += 1;
  return {
    type: 'GateVerdictGiven',
    data: {
      ...input,
      violations: input.violations.slice(0, KEPT_VIOLATIONS),
      violationCount: input.violations.length,
      counts,
      ...(input.passed ? {} : { siem: GATE_FAILED_SIEM }),
    },
  };
}
