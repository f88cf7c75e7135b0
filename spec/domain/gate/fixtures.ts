import type { GateInput, GateIssue } from '../../../domain/gate/evaluate-gate';
import type { TargetObservation } from '../../../domain/gate/observation';
import { SEVERITIES } from '../../../domain/gate/severity';
import { TRIAGE_STATUSES } from '../../../domain/triage/status';

export const examined: TargetObservation = { newestFinishedScanStatus: 'completed', anyScanCompleted: true };

let next = 1;
export function issue(over: Partial<GateIssue> = {}): GateIssue {
  const id = next++;
  return {
    issueId: id,
    identifier: `CVE-2024-${1000 + id}`,
    severity: 'high',
    package: 'lodash',
    kev: false,
    fixable: true,
    triageStatus: 'under_review',
    type: 'vulnerability',
    ...over,
  };
}

export function gate(over: Partial<GateInput> = {}): GateInput {
  return { observation: examined, issues: [], ...over };
}

/** A backlog of `size` mixed issues, one in ten KEV-listed, every flag combination represented (also timed by bench:gate). */
export function mixedBacklog(size: number): GateIssue[] {
  const types = ['vulnerability', 'secret', 'iac', 'sast', 'imported', 'plugin'] as const;
  return Array.from({ length: size }, (_, i) => ({
    issueId: i,
    identifier: `CVE-2024-${i}`,
    severity: SEVERITIES[i % SEVERITIES.length]!,
    package: i % 7 === 0 ? null : `pkg-${i % 500}`,
    kev: i % 10 === 0,
    fixable: i % 3 !== 0,
    triageStatus: TRIAGE_STATUSES[i % TRIAGE_STATUSES.length]!,
    type: types[i % types.length]!,
  }));
}
