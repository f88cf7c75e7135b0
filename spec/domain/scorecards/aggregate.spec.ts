import { expect } from 'chai';
import { dedupeById, scoreAggregate, scopeRiskPoints } from '../../../domain/scorecards/aggregate';
import { target } from './fixtures';

describe('scorecards: project and solution scores', () => {
  it('[S1.2.9-14] the score is the lowest score among the scanned targets the caller sees', () => {
    expect(scoreAggregate([target(1, 93, 4), target(2, 83, 10), target(3, 100, 0)], 14)).to.include({ score: 83, grade: 'B', riskPoints: 14 });
  });

  it('[S1.2.9-14] held at the scanned share: three of four targets scanned, lowest 90, scores 75', () => {
    const result = scoreAggregate([target(1, 90, 5.75), target(2, 95, 2.75), target(3, 100, 0), target(4, null)], 8.5);
    expect(result).to.include({ score: 75, grade: 'B', riskPoints: 8.5 });
  });

  it('[S1.2.9-14] the share caps, it never raises: a low lowest score stays', () => {
    expect(scoreAggregate([target(1, 40, 50), target(2, null)], 50).score).to.equal(40);
  });

  it('[S1.2.9-02] a tiny scanned share still gives at least 1', () => {
    const targets = [target(1, 100), ...Array.from({ length: 250 }, (_, i) => target(i + 2, null))];
    expect(scoreAggregate(targets, 0).score).to.equal(1);
  });

  it('[S1.2.9-12] with no scanned visible target the score and riskPoints are null, the grade NO_DATA', () => {
    expect(scoreAggregate([target(1, null), target(2, null)], 0)).to.deep.equal({ score: null, grade: 'NO_DATA', riskPoints: null, weakestTarget: null });
    expect(scoreAggregate([], 0).score).to.equal(null);
  });

  it('[S1.2.9-13] weakestTarget carries kind, id, name, score, grade and riskPoints', () => {
    const result = scoreAggregate([target(1, 93, 4), target(2, 83, 10, 'container'), target(3, null)], 14);
    expect(result.weakestTarget).to.deep.equal({ kind: 'container', id: 2, name: 'target-2', score: 83, grade: 'B', riskPoints: 10 });
  });

  it('[S1.2.9-21] on equal lowest scores the weakest is the one with more riskPoints (it ranks last)', () => {
    const result = scoreAggregate([target(1, 54, 25), target(2, 54, 30), target(3, 54, 27)], 82);
    expect(result.weakestTarget?.id).to.equal(2);
  });

  it('[S1.2.9-15] riskPoints over the whole scope count each issue and each licence once', () => {
    const shared = { id: 'issue-7', severity: 'critical' as const, kev: false };
    const issues = [shared, { id: 'issue-8', severity: 'high' as const, kev: false }, shared];
    const licences = [{ id: 'GPL-3.0@lib' }, { id: 'GPL-3.0@lib' }];
    expect(scopeRiskPoints(issues, licences)).to.equal(10 + 4 + 4);
    expect(dedupeById(issues)).to.have.length(2);
  });

  it('[S1.2.3-17] scope riskPoints leave imported and plugin issues out', () => {
    expect(scopeRiskPoints([{ id: 1, severity: 'critical', kev: true, type: 'imported' }, { id: 2, severity: 'low', kev: false, type: 'plugin' }], [])).to.equal(0);
  });
});
