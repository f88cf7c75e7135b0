import type { GateInput, GateIssue } from '../../../domain/gate/evaluate-gate';
import type { TargetObservation } from '../../../domain/gate/observation';

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
