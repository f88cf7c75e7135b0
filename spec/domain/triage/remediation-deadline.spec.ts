import { expect } from 'chai';
import { DEFAULT_REMEDIATION_WINDOWS, isOverdue, remediationDeadline } from '../../../domain/triage/remediation-deadline';

describe('triage: remediation deadline', () => {
  const firstSeen = '2025-01-01T00:00:00.000Z';

  it('[S1.2.3-18] the deadline is first seen plus the severity window (defaults 7, 30, 90, 180 days)', () => {
    expect(DEFAULT_REMEDIATION_WINDOWS).to.deep.equal({ critical: 7, high: 30, medium: 90, low: 180 });
    expect(remediationDeadline(firstSeen, 'critical')).to.equal('2025-01-08T00:00:00.000Z');
    expect(remediationDeadline(firstSeen, 'high')).to.equal('2025-01-31T00:00:00.000Z');
    expect(remediationDeadline(firstSeen, 'medium')).to.equal('2025-04-01T00:00:00.000Z');
    expect(remediationDeadline(firstSeen, 'low')).to.equal('2025-06-30T00:00:00.000Z');
  });

  it('[S1.2.3-18] windows are a parameter, ready to become settings', () => {
    expect(remediationDeadline(firstSeen, 'critical', { ...DEFAULT_REMEDIATION_WINDOWS, critical: 1 })).to.equal('2025-01-02T00:00:00.000Z');
  });

  it('[S1.2.3-18] an issue is overdue only once its deadline has passed', () => {
    expect(isOverdue(firstSeen, 'critical', new Date('2025-01-08T00:00:00.000Z'))).to.equal(false);
    expect(isOverdue(firstSeen, 'critical', new Date('2025-01-08T00:00:00.001Z'))).to.equal(true);
  });
});
