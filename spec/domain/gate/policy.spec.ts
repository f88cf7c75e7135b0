import { expect } from 'chai';
import { evaluateGate } from '../../../domain/gate/evaluate-gate';
import { DEFAULT_GATE_POLICY, parseGatePolicy } from '../../../domain/gate/policy';
import { parseSeverityThreshold } from '../../../domain/gate/severity';
import { gate } from './fixtures';
import { refusal } from '../../support/decider-spec';

describe('gate: policy', () => {
  it('[S1.2.8-05] flags default to include_triaged false, fixable_only false, severity high, include_plugins false', () => {
    expect(parseGatePolicy()).to.deep.equal(DEFAULT_GATE_POLICY);
    expect(parseGatePolicy({})).to.deep.equal({ includeTriaged: false, fixableOnly: false, severity: 'high', includePlugins: false, minLineCoverage: null });
    expect(parseGatePolicy({ include_triaged: true, fixable_only: true, severity: 'low', include_plugins: true })).to.include({
      includeTriaged: true,
      fixableOnly: true,
      severity: 'low',
      includePlugins: true,
    });
  });

  for (const severity of ['critical', 'high', 'medium', 'low']) {
    it(`[S1.7-10] severity ${severity} is a threshold`, () => {
      expect(parseSeverityThreshold(severity)).to.equal(severity);
    });
  }

  for (const bad of ['severe', 'HIGH', '', 'none', 3]) {
    it(`[S1.7-10] severity ${JSON.stringify(bad)} is refused: 400 Unknown severity`, () => {
      const error = refusal(() => evaluateGate(gate({ policy: { severity: bad as string } })));
      expect(error.kind).to.equal('invalid');
      expect(error.message).to.equal('Unknown severity');
    });
  }

  it('[S1.2.8-05] a flag that is not a boolean is refused (400)', () => {
    expect(refusal(() => parseGatePolicy({ include_triaged: 'yes' as never })).kind).to.equal('invalid');
  });
});
