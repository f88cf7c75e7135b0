import { expect } from 'chai';
import { rankTargets, weakestTarget } from '../../../domain/scorecards/ranking';
import { target } from './fixtures';

describe('scorecards: ranking', () => {
  it('[S1.2.9-21] ranks best first; ties on score break on riskPoints, fewer first', () => {
    const ranked = rankTargets([target(1, 54, 40), target(2, 93, 4), target(3, 54, 25), target(4, 1, 400), target(5, 54, 31)]);
    expect(ranked.map((t) => t.id)).to.deep.equal([2, 3, 5, 1, 4]);
  });

  it('[S1.2.9-21] never-scanned targets rank after every scanned one; the input is not reordered', () => {
    const input = [target(1, null), target(2, 1, 300), target(3, null)];
    expect(rankTargets(input).map((t) => t.id)).to.deep.equal([2, 1, 3]);
    expect(input.map((t) => t.id)).to.deep.equal([1, 2, 3]);
  });

  it('[S1.2.9-13] the weakest target is the last scanned one in the ranking', () => {
    const targets = [target(1, 54, 40), target(2, 93, 4), target(3, 54, 25), target(4, null)];
    expect(weakestTarget(targets)?.id).to.equal(rankTargets(targets).filter((t) => t.score !== null).at(-1)!.id);
    expect(weakestTarget([target(1, null)])).to.equal(null);
  });
});
