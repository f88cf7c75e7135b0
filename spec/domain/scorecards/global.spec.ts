import { expect } from 'chai';
import { globalScorecard, type GlobalIssue, type GlobalScorecardInput } from '../../../domain/scorecards/global';
import { target } from './fixtures';

const NOW = new Date('2025-06-01T00:00:00.000Z');
const OLD = '2025-01-01T00:00:00.000Z';
const RECENT = '2025-05-30T00:00:00.000Z';

function issue(id: number, over: Partial<GlobalIssue> = {}): GlobalIssue {
  return { id, severity: 'medium', kev: false, firstSeenAt: RECENT, type: 'vulnerability', triageStatus: 'under_review', ...over };
}

const input: GlobalScorecardInput = {
  targets: [target(1, 93, 4), target(2, 83, 10, 'container'), target(3, 54, 25), target(4, null), target(5, null)],
  issues: [
    issue(1, { severity: 'high' }),
    issue(2, { severity: 'critical', firstSeenAt: OLD }),
    issue(2, { severity: 'critical', firstSeenAt: OLD }), // seen through a second target
    issue(3, { severity: 'low', kev: true }),
    issue(4, { severity: 'critical', type: 'imported', firstSeenAt: OLD }),
    issue(5, { severity: 'high', type: 'plugin', kev: true }),
    issue(6, { severity: 'high', firstSeenAt: OLD, triageStatus: 'will_not_fix' }),
  ],
  licenceViolations: [{ id: 'a' }, { id: 'a' }, { id: 'b' }],
  now: NOW,
};

describe('scorecards: the global scorecard', () => {
  const card = globalScorecard(input);

  it('[S1.2.9-17] grades lists every grade including NO_DATA, each with its count of visible targets', () => {
    expect(card.grades).to.deep.equal([
      { grade: 'A', count: 1 },
      { grade: 'B', count: 1 },
      { grade: 'C', count: 0 },
      { grade: 'D', count: 1 },
      { grade: 'E', count: 0 },
      { grade: 'F', count: 0 },
      { grade: 'NO_DATA', count: 2 },
    ]);
  });

  it('[S1.2.9-19] [S1.2.9-20] has exactly riskPoints, the counts and the target figures, and no single score or grade', () => {
    expect(Object.keys(card).sort()).to.deep.equal(
      [
        'grades',
        'weakestTarget',
        'riskPoints',
        'totalTargets',
        'observedTargets',
        'openCriticalCount',
        'openHighCount',
        'openKevCount',
        'overdueCount',
        'licenseViolationCount',
      ].sort(),
    );
    expect(card).to.not.have.any.keys('score', 'grade');
  });

  it('[S1.2.9-19] counts each issue once, leaving imported and plugin issues out [S1.2.3-17]', () => {
    expect(card).to.include({
      totalTargets: 5,
      observedTargets: 3,
      openCriticalCount: 1,
      openHighCount: 2,
      openKevCount: 1,
      licenseViolationCount: 2,
      // high 4 + critical 10 + KEV 25 + will_not_fix high 4 + two licences 8
      riskPoints: 51,
    });
  });

  it('[S1.2.9-19] overdueCount counts issues past their remediation deadline, not will_not_fix exceptions', () => {
    expect(card.overdueCount).to.equal(1);
  });

  it('[S1.2.9-13] weakestTarget is the lowest-ranking scanned target', () => {
    expect(card.weakestTarget).to.deep.equal({ kind: 'repository', id: 3, name: 'target-3', score: 54, grade: 'D', riskPoints: 25 });
  });

  it('[S1.2.9-18] weakestTarget is null when no target is scanned', () => {
    const none = globalScorecard({ targets: [target(1, null)], issues: [], licenceViolations: [], now: NOW });
    expect(none.weakestTarget).to.equal(null);
    expect(none.grades.find((g) => g.grade === 'NO_DATA')?.count).to.equal(1);
    expect(none.observedTargets).to.equal(0);
  });
});
