import { expect } from 'chai';
import { capturedLogger } from '../../../support/captured-log';
import { RunningVigil, startVigil } from '../../../support/vigil';

/** Issue #15: one access-log line per request, carrying the request id echoed in X-Request-Id. */
describe('access log and request id', function () {
  this.timeout(60_000);
  let v: RunningVigil;
  const captured = capturedLogger();
  const lines = () => captured.entries.filter((e) => e.message === 'request' && e.component === 'http');

  before(async () => { v = await startVigil({ logger: captured.logger }); });
  after(async () => v?.stop());

  it('[#15] writes one line per request with id, method, route template, status and duration', async () => {
    const token = await v.signIn();
    const before = lines().length;
    const answer = await v.request('GET', '/repositories/4711', { token, headers: { 'x-request-id': 'ci-run-42.step:7' } });
    expect(answer.status).to.equal(404);
    expect(answer.headers.get('x-request-id')).to.equal('ci-run-42.step:7');
    const mine = lines().slice(before).filter((l) => l.requestId === 'ci-run-42.step:7');
    expect(mine).to.have.length(1);
    expect(mine[0]).to.include({ method: 'GET', route: '/api/v1/repositories/{id}', status: 404, level: 'info' });
    expect(mine[0].durationMs).to.be.a('number').and.at.least(0);
    expect(mine[0].address).to.equal('127.0.0.1');
  });

  it('[#15] generates an id when none is offered and logs it, never the raw path', async () => {
    const answer = await v.request('GET', '/scorecards/badges/secret-badge-token.svg');
    const id = answer.headers.get('x-request-id');
    expect(id).to.match(/^[0-9a-f-]{36}$/);
    const line = lines().find((l) => l.requestId === id);
    expect(line).to.include({ route: '/api/v1/scorecards/badges/{badgeToken}.svg', status: 404 });
    expect(JSON.stringify(line)).not.to.contain('secret-badge-token');
  });

  it('[#15] replaces an offered id that is too long or not a plain token', async () => {
    for (const offered of ['x'.repeat(129), 'two words', 'forged"}{"status":200', 'é']) {
      const answer = await fetch(`${v.url}/api/v1/health`, { headers: { 'x-request-id': offered } });
      const id = answer.headers.get('x-request-id')!;
      expect(id, offered).to.match(/^[0-9a-f-]{36}$/);
      expect(lines().filter((l) => l.requestId === id)).to.have.length(1);
    }
    const longest = 'a'.repeat(128);
    expect((await fetch(`${v.url}/api/v1/health`, { headers: { 'x-request-id': longest } })).headers.get('x-request-id')).to.equal(longest);
  });

  it('[#15] names paths no route declares "unmatched" and still logs them', async () => {
    const answer = await v.request('GET', '/api/v1/nothing-here/../etc');
    const line = lines().find((l) => l.requestId === answer.headers.get('x-request-id'));
    expect(line).to.include({ route: 'unmatched', status: 404 });
  });
});
