import { expect } from 'chai';
import { RunningVigil, startVigil } from '../../../support/vigil';

/** Issue #15: helmet's headers on every answer, successes, problem documents and 404s alike. */
describe('security headers', function () {
  this.timeout(60_000);
  let v: RunningVigil;
  before(async () => { v = await startVigil(); });
  after(async () => v?.stop());

  function expectHelmet(headers: Headers, what: string) {
    const csp = headers.get('content-security-policy') ?? '';
    expect(csp, what).to.contain("default-src 'self'").and.contain("script-src 'self'").and.contain("frame-ancestors 'none'").and.contain("object-src 'none'");
    expect(csp, what).not.to.contain('unsafe-inline');
    expect(csp, what).not.to.contain('unsafe-eval');
    expect(headers.get('x-content-type-options'), what).to.equal('nosniff');
    expect(headers.get('x-frame-options'), what).to.equal('SAMEORIGIN');
    expect(headers.get('referrer-policy'), what).to.equal('no-referrer');
    expect(headers.get('strict-transport-security'), what).to.contain('max-age=');
    expect(headers.get('cross-origin-opener-policy'), what).to.equal('same-origin');
    expect(headers.get('x-powered-by'), what).to.equal(null);
  }

  it('[#15] on a success, a 401, a 404, a 405 and a 400 problem document', async () => {
    const token = await v.signIn();
    const answers = {
      health: await v.request('GET', '/health'),
      unauthorized: await v.request('GET', '/repositories'),
      unknown: await v.request('GET', '/api/v1/no-such-route'),
      method: await v.request('DELETE', '/health'),
      invalid: await v.request('POST', '/repositories', { token, body: { url: 7 } }),
    };
    expect(answers.health.status).to.equal(200);
    expect([answers.unauthorized.status, answers.unknown.status, answers.method.status, answers.invalid.status]).to.deep.equal([401, 404, 405, 400]);
    for (const [what, answer] of Object.entries(answers)) expectHelmet(answer.headers, what);
    expect(answers.invalid.headers.get('content-type')).to.contain('application/problem+json');
  });

  it('[#15] a badge stays embeddable by other sites, with its own stricter policy', async () => {
    const token = await v.signIn();
    const repo = await v.request('POST', '/repositories', { token, body: { url: 'https://example.com/org/badge' } });
    const badge = await v.request('POST', '/scorecards/badges', { token, body: { repositoryId: repo.body.id } });
    expect(badge.status).to.equal(201);
    const answer = await v.request('GET', badge.body.path);
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('cross-origin-resource-policy')).to.equal('cross-origin');
    expect(answer.headers.get('content-security-policy')).to.equal("default-src 'none'; style-src 'unsafe-inline'");
    expect(answer.headers.get('x-request-id')).to.be.a('string');
    expectHelmet((await v.request('GET', '/scorecards/badges/unknown.svg')).headers, 'badge 404');
  });
});
