import { expect } from 'chai';
import { evaluateGate } from '../../../domain/gate/evaluate-gate';
import type { GatePolicyInput } from '../../../domain/gate/policy';
import { gate, issue } from './fixtures';

const everyFlag: GatePolicyInput = { include_triaged: true, fixable_only: true, severity: 'low', include_plugins: true };

describe('gate: the observation rule', () => {
  it('[S1.7-30] [S1.2.8-04] with no completed scan the verdict fails with an observation violation of rule and reason only', () => {
    const verdict = evaluateGate(gate({ observation: { newestFinishedScanStatus: null, anyScanCompleted: false } }));
    expect(verdict.passed).to.equal(false);
    expect(verdict.violations).to.have.length(1);
    expect(Object.keys(verdict.violations[0]!).sort()).to.deep.equal(['reason', 'rule']);
    expect(verdict.violations[0]!.rule).to.equal('observation');
  });

  it('[S1.7-31] when the newest finished scan failed the observation violation comes first, before findings', () => {
    const verdict = evaluateGate(
      gate({ observation: { newestFinishedScanStatus: 'failed', anyScanCompleted: true }, issues: [issue({ severity: 'critical' })] }),
    );
    expect(verdict.violations.map((v) => v.rule)).to.deep.equal(['observation', 'severity']);
  });

  it('[S1.7-32] no policy flag relaxes the observation violation', () => {
    const verdict = evaluateGate(gate({ observation: { newestFinishedScanStatus: 'failed', anyScanCompleted: true }, policy: everyFlag }));
    expect(verdict).to.deep.equal({ passed: false, violations: [{ rule: 'observation', reason: 'The newest finished scan of the target failed' }] });
  });

  it('[S1.7-33] a pending or running scan is not an examination: the caller leaves it out, and a completed scan before it counts', () => {
    // Newest scan running, the one before it completed: the newest *finished* scan completed.
    expect(evaluateGate(gate({ observation: { newestFinishedScanStatus: 'completed', anyScanCompleted: true } })).passed).to.equal(true);
    // Only a running scan so far: nothing finished, nothing completed.
    expect(evaluateGate(gate({ observation: { newestFinishedScanStatus: null, anyScanCompleted: false } })).passed).to.equal(false);
  });

  it('[S1.2.8-01] an examined target with nothing to report passes with no violations', () => {
    expect(evaluateGate(gate())).to.deep.equal({ passed: true, violations: [] });
  });
});
