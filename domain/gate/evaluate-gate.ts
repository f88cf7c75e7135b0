import { isSettling, type TriageStatus } from '../triage/status';
import { coverageViolation, type LineCoverage } from './coverage';
import { isImportedOrPlugin, type IssueType } from './issue-types';
import { observationViolation, type TargetObservation } from './observation';
import { parseGatePolicy, type GatePolicyInput } from './policy';
import { SEVERITY_RANK, type Severity } from './severity';
import type { FindingViolation, IssueId, Verdict, Violation } from './verdict';

/** One open issue of the target, as the backlog read model holds it. */
export interface GateIssue {
  readonly issueId: IssueId;
  /** CVE, GHSA, rule id, ... */
  readonly identifier: string;
  readonly severity: Severity;
  /** Null for findings that have no package (secrets, SAST, IaC). */
  readonly package: string | null;
  readonly kev: boolean;
  readonly fixable: boolean;
  readonly triageStatus: TriageStatus;
  readonly type: IssueType;
  /** The finding's file and line, when it has them ('' or null otherwise). */
  readonly path?: string | null;
  readonly line?: number | null;
}

export interface GateInput {
  readonly observation: TargetObservation;
  readonly issues: readonly GateIssue[];
  readonly coverage?: LineCoverage | null;
  readonly policy?: GatePolicyInput | null;
}

function finding(rule: FindingViolation['rule'], issue: GateIssue, reason: string): FindingViolation {
  return {
    rule, reason, issueId: issue.issueId, identifier: issue.identifier, severity: issue.severity, package: issue.package,
    ...(issue.path ? { path: issue.path } : {}), ...(issue.path && issue.line && issue.line > 0 ? { line: issue.line } : {}),
  };
}

function where(issue: GateIssue): string {
  return issue.package === null ? issue.identifier : `${issue.identifier} in ${issue.package}`;
}

/** push(...items) would pass every item as an argument: too many for the stack on a large backlog. */
function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

/**
 * The CI gate's verdict for one target: pure, one pass over the issues, no sorting.
 * Order of violations: observation (always first, S1.7-30), then kev, then severity from critical
 * down (buckets filled in the same pass), then coverage. An issue that is KEV-listed is reported
 * once, under kev, since that rule fails it regardless of threshold.
 * Scope of the finding rules: settled triage (not_affected, will_not_fix, fixed) only with
 * include_triaged; imported and plugin issues only with include_plugins; fixable_only keeps the
 * fixable ones, KEV-listed included. No flag touches the observation rule (S1.7-32).
 * Throws DomainError invalid "Unknown severity" for a bad threshold, before looking at anything else.
 */
export function evaluateGate(input: GateInput): Verdict {
  const policy = parseGatePolicy(input.policy);
  const threshold = SEVERITY_RANK[policy.severity];
  const kev: FindingViolation[] = [];
  // Index = severity rank (1 low .. 4 critical); read back from 4 down.
  const bySeverity: FindingViolation[][] = [[], [], [], [], []];

  for (const issue of input.issues) {
    if (!policy.includePlugins && isImportedOrPlugin(issue.type)) continue;
    if (!policy.includeTriaged && isSettling(issue.triageStatus)) continue;
    if (policy.fixableOnly && !issue.fixable) continue;
    if (issue.kev) {
      kev.push(finding('kev', issue, `${where(issue)} is known to be exploited (KEV)`));
      continue;
    }
    const rank = SEVERITY_RANK[issue.severity];
    if (rank >= threshold) {
      bySeverity[rank]!.push(finding('severity', issue, `${where(issue)} is ${issue.severity}, at or above the threshold ${policy.severity}`));
    }
  }

  const violations: Violation[] = [];
  const observation = observationViolation(input.observation);
  if (observation) violations.push(observation);
  append(violations, kev);
  for (let rank = 4; rank >= 1; rank--) append(violations, bySeverity[rank]!);
  const coverage = coverageViolation(policy.minLineCoverage, input.coverage);
  if (coverage) violations.push(coverage);
  return { passed: violations.length === 0, violations };
}
