import { expect } from 'chai';
import { evaluateGate } from '../../../domain/gate/evaluate-gate';
import { isSettling } from '../../../domain/triage/status';
import { examined, mixedBacklog } from './fixtures';

// The time this takes is printed by `npm run bench:gate` (evaluation line): benchmarks measure, tests never assert a time.
describe('gate: a large backlog', () => {
  it('[S1.2.8-01] evaluates 20,000 mixed issues in one pass: every KEV issue once under kev, the rest by severity', () => {
    const issues = mixedBacklog(20_000);
    const verdict = evaluateGate({ observation: examined, issues, policy: { severity: 'low', include_plugins: true } });
    const counted = issues.filter((i) => !isSettling(i.triageStatus));
    expect(verdict.violations.filter((v) => v.rule === 'kev')).to.have.length(counted.filter((i) => i.kev).length);
    expect(verdict.violations).to.have.length(counted.length);
    expect(verdict.violations.length).to.be.greaterThan(5_000);
  });
});
