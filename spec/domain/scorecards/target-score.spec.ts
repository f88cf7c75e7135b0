import { expect } from 'chai';
import { scoreFromRiskPoints, scoreTarget } from '../../../domain/scorecards/target-score';
import { RISK_POINTS, type RiskIssue } from '../../../domain/scorecards/risk-points';
import { EXPLOITED_SCORE_CAP } from '../../../domain/scorecards/grades';

const critical: RiskIssue = { severity: 'critical', kev: false };
const high: RiskIssue = { severity: 'high', kev: false };
const medium: RiskIssue = { severity: 'medium', kev: false };
const low: RiskIssue = { severity: 'low', kev: false };
const times = (n: number, issue: RiskIssue): RiskIssue[] => Array.from({ length: n }, () => issue);
const score = (openIssues: RiskIssue[], disallowedLicences = 0) => scoreTarget({ openIssues, disallowedLicences, scanned: true });

describe('scorecards: a target\'s score (spec 1 §2.9)', () => {
  it('[S1.2.9-01] score = round(100 x e^(-riskPoints/55))', () => {
    for (const points of [0, 1, 7.5, 20, 55, 110, 200]) {
      expect(scoreFromRiskPoints(points, false)).to.equal(Math.round(100 * Math.exp(-points / 55)));
    }
  });

  it('[S1.2.9-02] a score is never below 1: riskPoints 300 gives 1, not 0', () => {
    expect(scoreFromRiskPoints(300, false)).to.equal(1);
    expect(score(times(30, critical))).to.deep.equal({ score: 1, grade: 'F', riskPoints: 300 });
  });

  it('[S1.2.9-03] a target with riskPoints 0 scores 100', () => {
    expect(score([])).to.deep.equal({ score: 100, grade: 'A', riskPoints: 0 });
  });

  it('[S1.2.9-04] a KEV issue adds 25 and counts in that class only: a critical KEV issue adds 25, not 35', () => {
    expect(score([{ severity: 'critical', kev: true }]).riskPoints).to.equal(25);
    expect(score([{ severity: 'low', kev: true }, critical]).riskPoints).to.equal(35);
  });

  it('[S1.2.9-05] each critical adds 10: a single open critical scores 83', () => {
    expect(score([critical])).to.include({ score: 83, riskPoints: 10 });
    expect(score(times(3, critical)).riskPoints).to.equal(30);
  });

  it('[S1.2.9-06] each high adds 4: a single open high scores 93', () => {
    expect(score([high])).to.include({ score: 93, riskPoints: 4 });
  });

  it('[S1.2.9-07] each medium adds 0.5', () => {
    expect(score(times(10, medium))).to.include({ riskPoints: 5, score: 91 });
  });

  it('[S1.2.9-08] each low adds 0.125', () => {
    expect(score(times(8, low))).to.include({ riskPoints: 1, score: 98 });
    expect(score(times(3, low)).riskPoints).to.equal(0.375);
  });

  it('[S1.2.9-09] each disallowed licence adds 4', () => {
    expect(score([], 2)).to.include({ riskPoints: 8, score: 86 });
    expect(RISK_POINTS.disallowedLicence).to.equal(4);
  });

  it('[S1.2.9-10] [S1.8.2-19] any exploited issue caps the score at 54: a single KEV issue scores 54, not 63', () => {
    expect(EXPLOITED_SCORE_CAP).to.equal(54);
    expect(score([{ severity: 'low', kev: true }])).to.deep.equal({ score: 54, grade: 'D', riskPoints: 25 });
    expect(score([{ severity: 'low', kev: true }, ...times(5, critical)]).score).to.equal(Math.round(100 * Math.exp(-75 / 55)));
  });

  it('[S1.2.9-11] a completed scan gives no bonus: scanned with an empty backlog is 100, not more', () => {
    expect(score([]).score).to.equal(100);
    expect(score([high]).score).to.equal(scoreFromRiskPoints(4, false));
  });

  it('[S1.2.9-12] riskPoints is null exactly when score is null: a target never scanned reads NO_DATA', () => {
    expect(scoreTarget({ openIssues: [critical], disallowedLicences: 1, scanned: false })).to.deep.equal({ score: null, grade: 'NO_DATA', riskPoints: null });
    expect(score([]).riskPoints).to.not.equal(null);
  });

  it('[S1.2.3-17] imported and plugin issues do not count in riskPoints', () => {
    expect(score([{ severity: 'critical', kev: true, type: 'imported' }, { severity: 'high', kev: false, type: 'plugin' }])).to.include({
      score: 100,
      riskPoints: 0,
    });
    expect(score([{ severity: 'high', kev: false, type: 'sast' }]).riskPoints).to.equal(4);
  });

  it('[S1.2.9-15] issues triaged not_affected or fixed leave the open backlog; will_not_fix stays counted', () => {
    expect(score([{ ...critical, triageStatus: 'not_affected' }, { ...critical, triageStatus: 'fixed' }]).riskPoints).to.equal(0);
    expect(score([{ ...critical, triageStatus: 'will_not_fix' }, { ...high, triageStatus: 'pending_approval' }]).riskPoints).to.equal(14);
  });
});
