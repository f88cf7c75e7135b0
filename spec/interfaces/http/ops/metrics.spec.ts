import { expect } from 'chai';
import { loadConfig } from '../../../../infrastructure/config/config';
import { SettingError } from '../../../../infrastructure/config/units';
import { RunningVigil, startVigil } from '../../../support/vigil';

const TOKEN = 'metrics-scraper-token-0123456789abcdef';

/** One sample's value from the Prometheus text format, 0 when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const inside = line.slice(name.length).match(/^\{(.*)\}/)?.[1] ?? '';
    if (want.every((w) => inside.split(/,(?=[a-z_]+=")/).includes(w))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

/** Issue #15: GET /metrics (VIGIL_METRICS_TOKEN) shows figures that move under requests. */
describe('GET /metrics', function () {
  this.timeout(60_000);
  let v: RunningVigil;
  let admin: string;
  const scrape = async () => {
    const answer = await fetch(`${v.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.contain('text/plain');
    return answer.text();
  };

  before(async () => {
    v = await startVigil({ env: { VIGIL_METRICS_TOKEN: TOKEN } });
    admin = await v.signIn();
  });
  after(async () => v?.stop());

  it('[#15] refuses a scrape without the token, with another one or with a session (401); only GET', async () => {
    expect((await fetch(`${v.url}/metrics`)).status).to.equal(401);
    const wrong = await fetch(`${v.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.status).to.equal(401);
    expect(wrong.headers.get('content-type')).to.contain('application/problem+json');
    // A Vigil session is not the scraper's credential.
    expect((await fetch(`${v.url}/metrics`, { headers: { authorization: `Bearer ${admin}` } })).status).to.equal(401);
    expect((await fetch(`${v.url}/metrics`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } })).status).to.equal(404);
  });

  it('[#15] HTTP latency by route template, event-store appends, gate verdicts, imports, scans and projection lag move', async () => {
    const first = await scrape();
    const repo = await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/metrics/one' } });
    expect(repo.status).to.equal(201);
    const gate = await v.request('POST', '/gate', { token: admin, body: { repositoryId: repo.body.id } });
    expect(gate.status).to.equal(200);
    expect(gate.body.passed).to.equal(false); // never scanned: the observation rule fails it
    const scan = await v.request('POST', `/repositories/${repo.body.id}/scan`, { token: admin, body: {} });
    expect(scan.status).to.equal(200);

    const key = await v.key(admin, { name: 'pipeline', scopes: ['sarif_import'] });
    const governor = await v.account(['platform_governor']);
    const source = await v.request('POST', '/sarif-sources', { token: governor.token, body: { slug: 'metrics', name: 'CI', api_key_id: key.id, repository_id: repo.body.id, kinds: ['sarif'], tools: ['Tool'] } });
    expect(source.status, source.text).to.equal(201);
    const sarif = JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name: 'Tool' } }, results: [{ ruleId: 'R1', level: 'error', message: { text: 'x' } }] }] });
    const imported = await v.request('POST', `/repositories/${repo.body.id}/sarif-imports`, { apiKey: key.key, raw: sarif, contentType: 'application/sarif+json' });
    expect(imported.status, imported.text).to.equal(201);

    const second = await scrape();
    const route = { method: 'POST', route: '/api/v1/repositories', status: '201' };
    expect(sample(second, 'vigil_http_request_duration_seconds_count', route)).to.equal(sample(first, 'vigil_http_request_duration_seconds_count', route) + 1);
    expect(sample(second, 'vigil_http_request_duration_seconds_sum', route)).to.be.greaterThan(0);
    expect(sample(second, 'vigil_gate_verdicts_total', { outcome: 'failed' })).to.equal(sample(first, 'vigil_gate_verdicts_total', { outcome: 'failed' }) + 1);
    expect(sample(second, 'vigil_events_appended_total', { type: 'RepositoryRegistered' })).to.be.greaterThan(sample(first, 'vigil_events_appended_total', { type: 'RepositoryRegistered' }));
    expect(sample(second, 'vigil_event_store_append_duration_seconds_count', { operation: 'appendMany', outcome: 'ok' }))
      .to.be.greaterThan(sample(first, 'vigil_event_store_append_duration_seconds_count', { operation: 'appendMany', outcome: 'ok' }));
    expect(sample(second, 'vigil_import_duration_seconds_count', { kind: 'sarif', status: '201' })).to.equal(1);
    expect(sample(second, 'vigil_import_size_bytes_sum', { kind: 'sarif', status: '201' })).to.equal(Buffer.byteLength(sarif));
    expect(sample(second, 'vigil_scan_queue_depth', { status: 'pending' })).to.equal(1);
    expect(sample(second, 'vigil_scans', { status: 'pending' })).to.equal(1);
    expect(second).to.match(/^vigil_projection_lag_events\{projection="backlog"\} \d+$/m);
    expect(second).to.match(/^vigil_projection_failures\{projection="audit"\} 0$/m);
    expect(second).to.match(/^vigil_process_cpu_seconds_total /m);
    // The SIEM outbox depth (issue #13), one sample per state.
    for (const status of ['pending', 'retrying', 'failed']) expect(second).to.match(new RegExp(`^vigil_siem_outbox_depth\\{status="${status}"\\} \\d+$`, 'm'));
    // The scrape itself is measured under its page's path.
    expect(sample(second, 'vigil_http_request_duration_seconds_count', { method: 'GET', route: '/metrics', status: '200' })).to.be.at.least(1);
  });

  it('[#15] a short or malformed VIGIL_METRICS_TOKEN stops the start with the setting\'s name', () => {
    expect(() => loadConfig({ VIGIL_METRICS_TOKEN: 'short' })).to.throw(SettingError, /VIGIL_METRICS_TOKEN/);
    expect(() => loadConfig({ VIGIL_METRICS_TOKEN: `${'x'.repeat(30)} y` })).to.throw(SettingError, /visible ASCII/);
    expect(() => loadConfig({ VIGIL_METRICS_TOKEN: TOKEN, VIGIL_METRICS_TOKEN_FILE: '/etc/hostname' })).to.throw(SettingError, /not both/);
    expect(loadConfig({ VIGIL_METRICS_TOKEN: TOKEN }).ops.metricsToken).to.equal(TOKEN);
  });

  it('[#15] without VIGIL_METRICS_TOKEN there is no /metrics (404)', async () => {
    const other = await startVigil();
    try {
      expect((await fetch(`${other.url}/metrics`)).status).to.equal(404);
    } finally {
      await other.stop();
    }
  });
});
