import { expect } from 'chai';
import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { createTestDatabase, engineAvailable, TestDatabase } from '../../support/databases';
import { testCertificates, until, webhookReceiver, WebhookReceiver } from '../../support/siem-receivers';
import { freePort } from '../../support/free-port';

const ROOT = path.resolve(__dirname, '../../..');
const ADMIN = { username: 'admin', password: 'correct-horse-battery' };

/**
 * A real Vigil process (`node --import tsx interfaces/cli/server.ts`, what `npm run dev` runs) over a
 * PostgreSQL database, killed with SIGKILL between the commit of a security event and its sending,
 * then started again: the event still reaches the HTTPS webhook (a receiver written here, its
 * certificate from a test CA the process trusts through NODE_EXTRA_CA_CERTS), with its externalId.
 */
describe('SIEM outbox across a Vigil killed with SIGKILL (child process, PostgreSQL, HTTPS webhook)', function () {
  this.timeout(180_000);
  let database: TestDatabase;
  let hook: WebhookReceiver;
  let child: ChildProcess | null = null;
  let port: number;
  const certs = testCertificates();

  before(async function () {
    if (!(await engineAvailable('postgres'))) this.skip();
    database = await createTestDatabase('postgres', { migrate: false });
    hook = await webhookReceiver({ tls: { key: certs.key, cert: certs.cert } });
    port = await freePort();
  });
  after(async () => {
    child?.kill('SIGKILL');
    await hook?.close();
    await database?.drop();
  });

  async function startChild(interval: string): Promise<void> {
    const t = database.target as { host: string; port: number; database: string; user: string };
    // node itself with tsx's loader (not the tsx wrapper, which would be killed instead of Vigil).
    child = spawn(process.execPath, ['--import', 'tsx', 'interfaces/cli/server.ts'], {
      cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env, VIGIL_DB_URL: `postgres://${t.user}@${t.host}:${t.port}/${t.database}`, VIGIL_PORT: String(port), VIGIL_HOST: '127.0.0.1',
        VIGIL_BOOTSTRAP_USERNAME: ADMIN.username, VIGIL_BOOTSTRAP_PASSWORD: ADMIN.password, VIGIL_LOG_LEVEL: 'error', VIGIL_EMBEDDED_WORKER: 'false',
        VIGIL_SIEM_INTERVAL: interval, NODE_EXTRA_CA_CERTS: certs.caFile,
      },
    });
    let stderr = '';
    child.stderr!.on('data', (c) => { stderr += c; });
    await until(async () => {
      if (child?.exitCode !== null) throw new Error(`Vigil stopped: ${stderr}`);
      try { return (await fetch(`http://127.0.0.1:${port}/api/v1/health`)).status === 200; } catch { return false; }
    }, 90_000);
  }

  const call = async (method: string, route: string, token: string | null, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1${route}`, {
      method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as any };
  };

  it('[S2.6-02] [S2.6-03] an event committed but not sent when the process is killed is sent after the restart, with its externalId', async () => {
    // A long interval: after its first (empty) turn only a commit of this process wakes the deliverer.
    await startChild('1h');
    const token = (await call('POST', '/auth/sign-in', null, ADMIN)).body.token as string;
    expect((await call('PATCH', '/settings', token, { siem_allow_private_destination: true })).status).to.equal(200);
    expect((await call('PUT', '/siem/config', token, { enabled: true, protocol: 'webhook', endpoint: hook.url, minimumSeverity: 'low' })).status).to.equal(200);
    const test = await call('POST', '/siem/test', token);
    expect(test.body, JSON.stringify(test.body)).to.include({ arrived: true }); // HTTPS with the test CA, hostname localhost verified
    // The collector stalls: the commit wakes the deliverer at once, and its sending hangs unanswered.
    hook.hold = true;
    const created = await call('POST', '/accounts', token, { username: 'restart-bob', displayName: 'Bob', password: 'a-long-enough-password', roles: ['reader'] });
    expect(created.status).to.equal(201);
    const row = await database.db.knex('siem_outbox').where({ signature: 'VGL-SEC-010', target: `account:${created.body.id}` }).first();
    expect(row, 'queued in the commit').to.not.equal(undefined);
    await until(() => hook.held > 0, 30_000);
    expect(await database.db.knex('siem_deliveries').where({ event_id: row.event_id }).first(), 'not sent yet').to.equal(undefined);
    child!.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    expect(hook.requests.some((r) => r.body.includes(row.event_id))).to.equal(false);
    hook.hold = false;

    await startChild('1s');
    // The killed instance's delivery lease lapses first (LEASE_MS, 30 s).
    await until(() => hook.requests.some((r) => r.body.includes(`externalId=${row.event_id}`)), 60_000);
    const cef = JSON.parse(hook.requests.find((r) => r.body.includes(row.event_id))!.body).cef as string;
    expect(cef).to.match(/^CEF:0\|Vigil\|Vigil\|[^|]+\|VGL-SEC-010\|Account privileges or credentials changed\|6\|rt=\d+ outcome=success suser=admin src=127\.0\.0\.1 act=ACCOUNT_CHANGED /);
    await until(async () => (await database.db.knex('siem_deliveries').where({ event_id: row.event_id }).first())?.status === 'delivered');
    child!.kill('SIGTERM');
    await new Promise((resolve) => child!.once('exit', resolve));
    child = null;
  });
});
