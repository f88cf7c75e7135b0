import { expect } from 'chai';
import { evaluateGate } from '../../../domain/gate/evaluate-gate';
import { parseGatePolicy } from '../../../domain/gate/policy';
import { gate, issue } from './fixtures';

describe('gate: the coverage rule', () => {
  it('[S1.2.8-02] is dormant until the policy names a minimum', () => {
    expect(evaluateGate(gate({ coverage: { linesCovered: 1, linesTotal: 100 } })).passed).to.equal(true);
    expect(evaluateGate(gate({ coverage: null })).passed).to.equal(true);
  });

  it('[S1.2.8-04] coverage under the minimum fails with a violation of rule and reason only, listed after the findings', () => {
    const verdict = evaluateGate(
      gate({ issues: [issue({ severity: 'critical' })], coverage: { linesCovered: 725, linesTotal: 1000 }, policy: { min_line_coverage: 80 } }),
    );
    expect(verdict.violations.map((v) => v.rule)).to.deep.equal(['severity', 'coverage']);
    expect(verdict.violations[1]).to.deep.equal({ rule: 'coverage', reason: 'Line coverage 72.5% is below the policy minimum of 80%' });
  });

  it('[S1.2.8-02] coverage at the minimum passes; no coverage import fails when a minimum is named', () => {
    expect(evaluateGate(gate({ coverage: { linesCovered: 80, linesTotal: 100 }, policy: { min_line_coverage: 80 } })).passed).to.equal(true);
    expect(evaluateGate(gate({ policy: { min_line_coverage: 80 } })).violations.map((v) => v.rule)).to.deep.equal(['coverage']);
  });

  it('[S1.2.8-05] a minimum outside 0..100 is refused (400)', () => {
    expect(() => parseGatePolicy({ min_line_coverage: 101 })).to.throw('min_line_coverage');
  });
});
