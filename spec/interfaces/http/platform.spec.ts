import { expect } from 'chai';
import { RunningVigil, startVigil } from '../../support/vigil';

describe('HTTP platform: problems, body limits, health, API docs', function () {
  let v: RunningVigil;
  let admin: string;

  before(async () => {
    v = await startVigil({ env: { VIGIL_API_DOCS_ENABLED: 'true', VIGIL_SWAGGER_UI_ENABLED: 'true' } });
    admin = await v.signIn();
  });
  after(async () => { await v.stop(); });

  it('[S1.0-01] [S1.7-01] answers an unknown route under /api/v1 with a 404 problem document', async () => {
    const r = await v.request('GET', '/nothing-here', { token: admin });
    expect(r.status).to.equal(404);
    expect(r.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(r.body).to.include({ status: 404, title: 'Not Found' });
    expect(r.body.detail).to.be.a('string');
  });

  it('[S1.7-02] carries no problem type on refusals §7 does not name', async () => {
    const r = await v.request('POST', '/repositories', { token: admin, body: { url: 'https://x.example/a', scanIntervalMinutes: -5 } });
    expect(r.status).to.equal(400);
    expect(r.body).not.to.have.property('type');
  });

  it('answers a malformed JSON body with 400 saying so, writing nothing', async () => {
    const before = await v.eventCount();
    const r = await v.request('POST', '/repositories', { token: admin, raw: '{"url": ', contentType: 'application/json' });
    expect(r.status).to.equal(400);
    expect(r.body.detail).to.equal('The request body is not valid JSON.');
    expect(await v.eventCount()).to.equal(before);
  });

  it('[S1.8.1-01] [S1.8.1-02] [S1.7-12] refuses a body over VIGIL_MAX_BODY_DEFAULT (1MB) with 413 stating the limit', async () => {
    const big = JSON.stringify({ url: 'https://x.example/a', name: 'x'.repeat(1024 * 1024) });
    const r = await v.request('POST', '/repositories', { token: admin, raw: big, contentType: 'application/json' });
    expect(r.status).to.equal(413);
    expect(r.body.detail).to.contain('1MB');
    expect(r.body.detail).to.contain('VIGIL_MAX_BODY_DEFAULT');
  });

  it('[S1.8.1-07] [S1.8.1-13] a sign-in route takes its own 16KB limit, smaller than the default: 20KB answers 413', async () => {
    const r = await v.request('POST', '/auth/sign-in', { raw: JSON.stringify({ username: 'admin', password: 'p'.repeat(20 * 1024) }), contentType: 'application/json' });
    expect(r.status).to.equal(413);
    expect(r.body.detail).to.contain('16KB');
  });

  it('[S1.8.1-01] bounds a body while reading it, whatever Content-Length claims', async () => {
    const http = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${v.url}/api/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      for (let i = 0; i < 40; i++) req.write('x'.repeat(1024));
      req.end();
    });
    expect(status).to.equal(413);
  });

  it('GET /health answers without a credential: status, eventStore, database, projections with position and lag', async () => {
    const r = await v.request('GET', '/health');
    expect(r.status).to.equal(200);
    expect(r.body).to.include({ status: 'up', eventStore: 'up', database: 'up' });
    expect(r.body.projections.map((p: { name: string }) => p.name)).to.include.members(['identity', 'targets', 'audit']);
    for (const p of r.body.projections) {
      expect(p.position).to.be.a('number');
      expect(p.lagEvents).to.equal(0);
    }
  });

  it('[S1.0-03] writes timestamps as ISO 8601 UTC', async () => {
    const r = await v.request('POST', '/repositories', { token: admin, body: { url: 'https://x.example/time' } });
    expect(r.body.createdAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('[S1.8.3-58] [S1.8.3-60] serves the OpenAPI document at /v3/api-docs to a credential when enabled', async () => {
    expect((await v.request('GET', '/v3/api-docs')).status).to.equal(401);
    const r = await v.request('GET', '/v3/api-docs', { token: admin });
    expect(r.status).to.equal(200);
    expect(r.body.openapi).to.equal('3.1.0');
    expect(r.body.paths).to.have.property('/repositories');
    expect(r.body.paths['/repositories'].post.requestBody.content['application/json'].schema.properties).to.have.property('scanManualOnly');
  });

  it('[S1.8.3-59] serves the UI page at /swagger-ui.html when enabled', async () => {
    const r = await v.request('GET', '/swagger-ui.html');
    expect(r.status).to.equal(200);
    expect(r.text).to.contain('/v3/api-docs');
  });

  it('records actor, address and time in every event\'s metadata', async () => {
    await v.request('POST', '/repositories', { token: admin, body: { url: 'https://x.example/meta' }, headers: { 'user-agent': 'spec-agent' } });
    const row = await v.database.db.knex('events').where({ type: 'RepositoryRegistered' }).orderBy('position', 'desc').first();
    const metadata = JSON.parse(row.metadata);
    expect(metadata.actor).to.equal(1);
    expect(metadata.address).to.equal('127.0.0.1');
    expect(metadata.userAgent).to.equal('spec-agent');
    expect(metadata.at).to.match(/Z$/);
  });
});

describe('API docs switched off and anonymous', function () {
  it('[S1.8.3-58] answers 404 for /v3/api-docs by default', async () => {
    const v = await startVigil();
    try {
      expect((await v.request('GET', '/v3/api-docs')).status).to.equal(404);
    } finally {
      await v.stop();
    }
  });

  it('[S1.8.3-60] lets anyone read the document with VIGIL_ANONYMOUS_API_DOCS', async () => {
    const v = await startVigil({ env: { VIGIL_API_DOCS_ENABLED: 'true', VIGIL_ANONYMOUS_API_DOCS: 'true' } });
    try {
      expect((await v.request('GET', '/v3/api-docs')).status).to.equal(200);
    } finally {
      await v.stop();
    }
  });
});
