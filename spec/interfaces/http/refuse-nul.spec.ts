import { expect } from 'chai';
import { nulPath } from '../../../interfaces/http/refuse-nul';

/** The walk behind the U+0000 middleware (issue #17); over HTTP in text-limits.spec.ts. */
describe('nulPath (interfaces/http/refuse-nul.ts)', () => {
  it('names the first string or key holding U+0000 by its JSON path; null when there is none', () => {
    expect(nulPath('body', { a: [1, 'x', { b: 'y\u0000' }] })).to.equal('body.a[2].b');
    expect(nulPath('body', { 'odd key': 'y\u0000' })).to.equal('body["odd key"]');
    expect(nulPath('query', { 'k\u0000': 'v' })).to.equal('query key "k\\u0000"');
    expect(nulPath('body', 'plain\u0000')).to.equal('body');
    expect(nulPath('body', { a: ['\t\n\r\u0007 are for the schemas'], n: 1, b: true, z: null })).to.equal(null);
    expect(nulPath('body', Buffer.from([0, 0, 0]))).to.equal(null);
  });

  it('walks a body nested 100,000 deep without running out of stack', () => {
    let deep: unknown = 'end\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(nulPath('body', deep)).to.match(/^body(\[0\]){100000}$/);
  });
});
