import { expect } from 'chai';
import { evaluateGate } from '../../../domain/gate/evaluate-gate';
import { SETTLING_STATUSES } from '../../../domain/triage/status';
import { gate, issue } from './fixtures';

describe('gate: kev and severity rules', () => {
  it('[S1.2.8-03] a finding violation carries rule, reason, issueId, identifier, severity and package', () => {
    const found = issue({ issueId: 42, identifier: 'CVE-2021-44228', severity: 'critical', package: 'log4j-core' });
    const verdict = evaluateGate(gate({ issues: [found] }));
    expect(verdict.passed).to.equal(false);
    expect(verdict.violations).to.have.length(1);
    expect(verdict.violations[0]).to.include({ rule: 'severity', issueId: 42, identifier: 'CVE-2021-44228', severity: 'critical', package: 'log4j-core' });
    expect(verdict.violations[0]!.reason).to.be.a('string').and.not.equal('');
  });

  it('[S1.2.8-02] a KEV-listed open issue fails under the kev rule whatever the threshold, and once only', () => {
    const verdict = evaluateGate(gate({ issues: [issue({ severity: 'low', kev: true })], policy: { severity: 'critical' } }));
    expect(verdict.violations.map((v) => v.rule)).to.deep.equal(['kev']);
    const both = evaluateGate(gate({ issues: [issue({ severity: 'critical', kev: true })] }));
    expect(both.violations.map((v) => v.rule)).to.deep.equal(['kev']);
  });

  it('[S1.2.8-05] the severity threshold (default high) fails issues at or above it and passes those below', () => {
    const issues = [issue({ severity: 'critical' }), issue({ severity: 'high' }), issue({ severity: 'medium' }), issue({ severity: 'low' })];
    expect(evaluateGate(gate({ issues })).violations.map((v) => 'severity' in v && v.severity)).to.deep.equal(['critical', 'high']);
    expect(evaluateGate(gate({ issues, policy: { severity: 'medium' } })).violations).to.have.length(3);
    expect(evaluateGate(gate({ issues, policy: { severity: 'low' } })).violations).to.have.length(4);
    expect(evaluateGate(gate({ issues: [issue({ severity: 'medium' })] })).passed).to.equal(true);
  });

  it('[S1.2.8-02] violations are listed kev first, then severity from critical down, without sorting the input', () => {
    const issues = [issue({ severity: 'high' }), issue({ severity: 'critical' }), issue({ severity: 'low', kev: true }), issue({ severity: 'high' })];
    const verdict = evaluateGate(gate({ issues, policy: { severity: 'high' } }));
    expect(verdict.violations.map((v) => ('severity' in v ? `${v.rule}:${v.severity}` : v.rule))).to.deep.equal([
      'kev:low',
      'severity:critical',
      'severity:high',
      'severity:high',
    ]);
  });

  for (const status of SETTLING_STATUSES) {
    it(`[S1.2.8-05] an issue triaged ${status} is left out unless include_triaged`, () => {
      const issues = [issue({ severity: 'critical', kev: true, triageStatus: status })];
      expect(evaluateGate(gate({ issues })).passed).to.equal(true);
      expect(evaluateGate(gate({ issues, policy: { include_triaged: true } })).passed).to.equal(false);
    });
  }

  it('[S1.2.8-05] pending_approval is not settled: it still fails the gate', () => {
    expect(evaluateGate(gate({ issues: [issue({ severity: 'critical', triageStatus: 'pending_approval' })] })).passed).to.equal(false);
  });

  it('[S1.2.8-05] fixable_only keeps only fixable issues, KEV-listed ones included', () => {
    const issues = [issue({ severity: 'critical', fixable: false }), issue({ kev: true, fixable: false }), issue({ severity: 'high', fixable: true })];
    const verdict = evaluateGate(gate({ issues, policy: { fixable_only: true } }));
    expect(verdict.violations.map((v) => ('issueId' in v ? v.issueId : null))).to.deep.equal([issues[2]!.issueId]);
  });

  for (const type of ['imported', 'plugin'] as const) {
    it(`[S1.2.3-16] ${type} issues fail the gate only with include_plugins`, () => {
      const issues = [issue({ type, severity: 'critical', kev: true })];
      expect(evaluateGate(gate({ issues })).passed).to.equal(true);
      expect(evaluateGate(gate({ issues, policy: { include_plugins: true } })).passed).to.equal(false);
    });
  }

  it('[S1.2.3-04] sast, secret and iac issues count like vulnerabilities', () => {
    const issues = (['sast', 'secret', 'iac'] as const).map((type) => issue({ type, severity: 'high', package: null }));
    expect(evaluateGate(gate({ issues })).violations).to.have.length(3);
  });
});
