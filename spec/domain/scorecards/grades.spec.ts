import { expect } from 'chai';
import { EXPLOITED_SCORE_CAP, GRADE_BANDS, gradeFor } from '../../../domain/scorecards/grades';

describe('scorecards: letter grades', () => {
  it('[S1.1-11] bands: A >= 90, B >= 75, C >= 55, D >= 35, E >= 15, F below', () => {
    const cases: [number, string][] = [[100, 'A'], [90, 'A'], [89, 'B'], [75, 'B'], [74, 'C'], [55, 'C'], [54, 'D'], [35, 'D'], [34, 'E'], [15, 'E'], [14, 'F'], [1, 'F']];
    for (const [score, grade] of cases) expect(gradeFor(score), `score ${score}`).to.equal(grade);
    expect(gradeFor(null)).to.equal('NO_DATA');
  });

  it('[S1.2.9-10] the exploited cap means something: a capped score never grades C or better', () => {
    expect(gradeFor(EXPLOITED_SCORE_CAP)).to.equal('D');
    expect(GRADE_BANDS.find((band) => band.grade === 'C')!.minScore).to.equal(EXPLOITED_SCORE_CAP + 1);
  });
});
