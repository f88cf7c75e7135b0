import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import Docker from 'dockerode';
import { ManualClock } from '../../../application/ports/clock';
import { SCAN_STEPS, ScanStep } from '../../../application/ports/scanning';
import { DockerScanExecutor } from '../../../infrastructure/scanning/executor';
import { loadScannerSettings } from '../../../infrastructure/scanning/settings';
import { AgentLine, AgentProcess, ensureStopped, startAgentProcess } from '../../support/agent-process';
import { newEncryptionKey } from '../../support/credentials';
import { requireCorpus } from '../../support/corpus';
import { RunningVigil, startVigil } from '../../support/vigil';
import { HttpsGitServer, startHttpsGitServer } from '../../infrastructure/scanning/git-servers';
import { GitServer, requireDocker, standIn, startGitServer } from '../../infrastructure/scanning/support';

/**
 * vigil-agent as real processes against a real control plane on loopback (issue #12): Vigil with
 * VIGIL_EMBEDDED_WORKER=false, agents started with tsx, a real git daemon and an HTTPS git server
 * demanding a token, the Docker stand-in scanner images (scripts/ci/docker.sh). Compared with the
 * built-in worker of a second Vigil scanning the same repository with the same images.
 */
const STAND_INS: Record<ScanStep, Parameters<typeof standIn>[0]> = { sbom: 'syft', vulnerabilities: 'grype', secrets: 'gitleaks', iac: 'checkov', sast: 'semgrep' };
const images = (over: Partial<typeof STAND_INS> = {}) => Object.fromEntries(SCAN_STEPS.map((s) => [s, standIn({ ...STAND_INS, ...over }[s])])) as Record<ScanStep, string>;

describe('vigil-agent command line (interfaces/cli/vigil-agent.ts)', function () {
  this.timeout(60_000);
  const run = (args: string[], env: Record<string, string> = {}) => {
    try {
      return { code: 0, out: execFileSync(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../../../interfaces/cli/vigil-agent.ts'), ...args], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' }) };
    } catch (error) {
      const e = error as { status: number; stdout: string };
      return { code: e.status, out: e.stdout };
    }
  };

  it('--version and --help answer and exit 0', () => {
    expect(run(['--version'])).to.deep.equal({ code: 0, out: 'vigil-agent 0.11.0\n' });
    const help = run(['--help']);
    expect(help.code).to.equal(0);
    for (const word of ['VIGIL_URL', '/run/secrets/vigil_agent_token', 'VIGIL_AGENT_WAIT', 'VIGIL_AGENT_RETRY', 'VIGIL_AGENT_HEARTBEAT', 'VIGIL_AGENT_WORK_DIR', 'SIGTERM']) expect(help.out).to.contain(word);
  });

  it('[S1.8.3-61] [S1.8.3-64] refuses to start without VIGIL_URL or a token file, saying which, as a JSON log line (exit 2)', () => {
    const noUrl = run([]);
    expect(noUrl.code).to.equal(2);
    expect(JSON.parse(noUrl.out.trim())).to.include({ level: 'error' }).and.have.property('message').that.contains('VIGIL_URL');
    const noToken = run([], { VIGIL_URL: 'http://127.0.0.1:9', VIGIL_AGENT_TOKEN_FILE: '/nonexistent/vigil_agent_token' });
    expect(noToken.code).to.equal(2);
    expect(JSON.parse(noToken.out.trim()).message).to.contain('VIGIL_AGENT_TOKEN_FILE');
  });
});

describe('vigil-agent processes against a control plane (interfaces/cli/vigil-agent.ts)', function () {
  this.timeout(240_000);
  requireCorpus(this);
  let docker: Docker;
  let git: GitServer;
  let v: RunningVigil;
  let admin: string;
  const clock = new ManualClock(new Date());
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-agent-spec-'));
  const agents: AgentProcess[] = [];
  let copies = 0;

  /** A fresh bare repository beside app.git, so each test has a target of its own. */
  const repositoryUrl = () => {
    const name = `app-${++copies}.git`;
    execFileSync('cp', ['-r', path.join(git.base, 'app.git'), path.join(git.base, name)]);
    return git.url(name);
  };
  const register = async (vigil: RunningVigil, token: string, url: string, over: Record<string, unknown> = {}) => {
    const r = await vigil.request('POST', '/repositories', { token, body: { url, scanManualOnly: true, ...over } });
    expect(r.status, r.text).to.equal(201);
    return r.body.id as number;
  };
  const requestScan = async (vigil: RunningVigil, token: string, repo: number) => {
    const r = await vigil.request('POST', `/repositories/${repo}/scan`, { token, body: {} });
    expect(r.status, r.text).to.equal(200);
    return r.body.id as number;
  };
  const scanOf = async (id: number) => (await v.request('GET', `/scans/${id}`, { token: admin })).body.scan;
  const until = async <T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 90_000): Promise<T> => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value) return value;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const finished = (id: number) => until(`scan ${id} to finish`, async () => {
    const s = await scanOf(id);
    return s.status === 'completed' || s.status === 'failed' ? s : null;
  });
  const agent = async (env: Record<string, string> = {}, over: Partial<typeof STAND_INS> = {}) => {
    const key = (await v.key(admin, { name: `agent-${randomBytes(3).toString('hex')}`, scopes: ['agent'] }));
    const workDir = fs.mkdtempSync(path.join(tmp, 'work-'));
    const p = startAgentProcess({
      VIGIL_URL: v.url, VIGIL_AGENT_TOKEN: key.key, VIGIL_AGENT_WORK_DIR: workDir, VIGIL_AGENT_WAIT: '2s', VIGIL_AGENT_RETRY: '1s', VIGIL_AGENT_HEARTBEAT: '1s',
      VIGIL_AGENT_TOKEN_FILE: '', VIGIL_SPEC_SCANNER_IMAGES: JSON.stringify(images(over)), VIGIL_VULNERABILITY_DB_DIR: path.join(tmp, 'db'), ...env,
    });
    agents.push(p);
    await p.waitFor((l) => l.message === 'Connected');
    return { process: p, agentId: key.id, workDir };
  };
  const issuesOf = async (vigil: RunningVigil, repo: number) => (await vigil.database.db.knex('issues').where({ target_kind: 'repository', target_id: repo })
    .select('type', 'tool_key', 'tool_name', 'rule_id', 'path', 'line', 'severity', 'identifier', 'package_name', 'package_version', 'status')
    .orderBy(['tool_key', 'rule_id', 'path', 'identifier']));

  before(async function () {
    docker = await requireDocker(this);
    git = await startGitServer();
    v = await startVigil({ clock, env: { VIGIL_EMBEDDED_WORKER: 'false', ENCRYPTION_KEY: newEncryptionKey() }, overrides: { scanExecutor: null } });
    admin = await v.signIn();
  });
  // Each test's agents end with it: a later test's scan must go to that test's agent.
  afterEach(async () => { for (const p of agents) await ensureStopped(p); });
  after(async () => {
    for (const p of agents) await ensureStopped(p);
    // Only the containers of this spec's agents (their work directories are under tmp).
    if (docker) {
      for (const c of await docker.listContainers({ all: true, filters: { label: ['vigil.scanner=true'] } })) {
        if (c.Mounts?.some((m) => m.Source?.startsWith(tmp))) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
      }
    }
    await v?.stop();
    await git?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('[S1.0-03] [S1.3.1-21] an agent scan and a built-in worker scan of the same repository produce the same rows', async () => {
    const url = repositoryUrl();
    await agent();
    const repo = await register(v, admin, url);
    const scan = await finished(await requestScan(v, admin, repo));
    expect(scan.status, scan.error ?? '').to.equal('completed');
    expect(scan.worker).to.match(/^agent:\d+$/);
    // The built-in worker of a second Vigil, same images, same repository.
    const builtIn = await startVigil({ overrides: { scanExecutor: new DockerScanExecutor({ settings: { ...loadScannerSettings({}, tmp), workDir: fs.mkdtempSync(path.join(tmp, 'builtin-')), images: images(), vulnerabilityDbDir: path.join(tmp, 'db') } }) } });
    try {
      const token = await builtIn.signIn();
      const other = await register(builtIn, token, url);
      await requestScan(builtIn, token, other);
      expect(await builtIn.services.scanWorker.runOnce()).to.deep.equal(['completed']);
      const theirs = (await builtIn.request('GET', `/scans?repo_id=${other}`, { token })).body[0];
      const mine = await issuesOf(v, repo);
      expect(mine.length, 'the stand-ins report findings').to.be.greaterThan(0);
      expect(mine).to.deep.equal(await issuesOf(builtIn, other));
      expect(scan.steps).to.deep.equal(theirs.steps);
      expect(scan.detectedLanguages).to.deep.equal(theirs.detectedLanguages);
      expect([scan.createdCount, scan.resolvedCount]).to.deep.equal([theirs.createdCount, theirs.resolvedCount]);
    } finally {
      await builtIn.stop();
    }
  });

  it('[S1.4.7-20] on SIGTERM an agent stops claiming and waits for its running scan, which completes', async () => {
    const a = await agent();
    const repo = await register(v, admin, repositoryUrl());
    const id = await requestScan(v, admin, repo);
    await a.process.waitFor((l) => l.message === 'Scan claimed' && l.scanId === id);
    a.process.child.kill('SIGTERM');
    const exit = await a.process.exited;
    expect(exit.code).to.equal(0);
    const messages = a.process.lines.map((l) => `${l.message}${l.scanId === id ? ` ${id}` : ''}`);
    expect(messages.indexOf(`Scan reported ${id}`)).to.be.greaterThan(-1);
    expect(messages.indexOf(`Scan reported ${id}`)).to.be.below(messages.indexOf('Stopped'));
    expect((await scanOf(id)).status).to.equal('completed');
  });

  it('[S1.3.1-17] kill -9 of an agent mid-scan: the lease lapses and the retry completes on another agent', async () => {
    const stuck = await agent({}, { sast: 'sleep' });
    const repo = await register(v, admin, repositoryUrl());
    const id = await requestScan(v, admin, repo);
    await stuck.process.waitFor((l) => l.message === 'Scan claimed' && l.scanId === id);
    stuck.process.child.kill('SIGKILL');
    await stuck.process.exited;
    // An agent's claim answers before the read models have it (ADR 0017): the scan reads scanning soon after.
    await until(`scan ${id} to read scanning`, async () => { const s = await scanOf(id); return s.status === 'scanning' && s.attempts === 1; });
    const rescuer = await agent();
    clock.advance(21 * 60_000);
    expect((await v.services.scanLifecycle.lapseExpired()).lapsed).to.equal(1);
    expect(await scanOf(id)).to.deep.include({ status: 'pending', attempts: 1 });
    clock.advance(2 * 60_000);
    const done = await finished(id);
    expect(done).to.deep.include({ status: 'completed', attempts: 2, worker: `agent:${rescuer.agentId}` });
  });

  it('[S1.4.7-21] a result signed with another key than the pinned one is refused 403 and audited; the scan is not completed by it', async () => {
    const forger = await agent({ VIGIL_AGENT_SIGNING_KEY: randomBytes(32).toString('base64') });
    const pinned = await v.request('PUT', `/admin/agents/${forger.agentId}/signing-key`, { token: admin, body: { publicKey: 'generate' } });
    expect(pinned.status).to.equal(200);
    const repo = await register(v, admin, repositoryUrl());
    const id = await requestScan(v, admin, repo);
    const refused = await forger.process.waitFor((l) => l.message === 'The result was not taken' && l.scanId === id, 90_000);
    expect(refused.status).to.equal(403);
    const refusals = await v.services.store.readStream('agent-refusals');
    expect(refusals.some((r) => (r.data as { scanId: number; audit: string }).scanId === id && (r.data as { audit: string }).audit === 'AGENT_RESULT_REFUSED')).to.equal(true);
    expect((await scanOf(id)).status).to.equal('scanning');
    await ensureStopped(forger.process);
  });

  it('[S1.4.7-25] [S1.4.7-28] [S1.4.7-29] a delegated agent clones a private repository with a sealed token, and no credential byte lands under its work directory', async () => {
    const username = 'oauth2';
    const token = `vigil-spec-${randomBytes(16).toString('hex')}`;
    let https: HttpsGitServer | null = null;
    try {
      https = await startHttpsGitServer(username, token);
      const host = `127.0.0.1:${https.port}`;
      const saved = await v.request('POST', '/credentials/https-tokens', { token: admin, body: { name: 'private', host, username, token } });
      expect(saved.status, saved.text).to.equal(201);
      const repo = await register(v, admin, https.url('app.git'), { httpsTokenId: saved.body.id });
      const key = await v.key(admin, { name: 'delegated', scopes: ['agent'] });
      const pinned = await v.request('PUT', `/admin/agents/${key.id}/signing-key`, { token: admin, body: { publicKey: 'generate' } });
      expect(pinned.status, pinned.text).to.equal(404); // no row before the first hello
      const workDir = fs.mkdtempSync(path.join(tmp, 'work-'));
      const env = {
        VIGIL_URL: v.url, VIGIL_AGENT_TOKEN: key.key, VIGIL_AGENT_WORK_DIR: workDir, VIGIL_AGENT_WAIT: '2s', VIGIL_AGENT_RETRY: '1s', VIGIL_AGENT_HEARTBEAT: '1s',
        VIGIL_AGENT_MODE: 'delegated', VIGIL_SPEC_SCANNER_IMAGES: JSON.stringify(images()), VIGIL_VULNERABILITY_DB_DIR: path.join(tmp, 'db'), GIT_SSL_CAINFO: https.caFile,
      };
      const first = startAgentProcess(env);
      agents.push(first);
      await first.waitFor((l) => l.message === 'Connected');
      const generated = await v.request('PUT', `/admin/agents/${key.id}/signing-key`, { token: admin, body: { publicKey: 'generate' } });
      first.child.kill('SIGTERM');
      await first.exited;
      // The signing key arrives as a file, as under /run/secrets/ (S1.8.3-64).
      const keyFile = path.join(tmp, `signing-key-${key.id}`);
      fs.writeFileSync(keyFile, generated.body.privateKey, { mode: 0o600 });
      const id = await requestScan(v, admin, repo);
      const p = startAgentProcess({ ...env, VIGIL_AGENT_SIGNING_KEY_FILE: keyFile });
      agents.push(p);
      let leaked = false;
      let looking = true;
      const needle = Buffer.from(token);
      const basic = Buffer.from(Buffer.from(`${username}:${token}`).toString('base64'));
      const look = (async () => {
        while (looking) {
          for (const file of walk(workDir)) {
            try {
              const bytes = fs.readFileSync(file);
              if (bytes.includes(needle) || bytes.includes(basic)) leaked = true;
            } catch { /* removed meanwhile */ }
          }
          await new Promise((r) => setTimeout(r, 25));
        }
      })();
      const done = await finished(id);
      looking = false;
      await look;
      expect(done.status, done.error ?? '').to.equal('completed');
      expect(done.worker).to.equal(`agent:${key.id}`);
      expect(https.requests.some((r) => r.authorization === `Basic ${Buffer.from(`${username}:${token}`).toString('base64')}`), 'the clone authenticated').to.equal(true);
      expect(leaked, 'a credential byte under the work directory').to.equal(false);
      expect(p.output()).not.to.contain(token);
    } finally {
      await https?.stop();
    }
  });
});

function walk(dir: string): string[] {
  const out: string[] = [];
  let entries: fs.Dirent[];
  try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return out; }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(full));
    else if (e.isFile()) out.push(full);
  }
  return out;
}

/**
 * The control plane going away and coming back, without Docker: the agent's VIGIL_URL points at a
 * TCP relay on loopback in front of a real control plane; closing the relay (and cutting its
 * connections) is the control plane going away, listening again on the same port is it coming back.
 */
describe('vigil-agent process when the control plane goes away (interfaces/cli/agent/runner.ts)', function () {
  this.timeout(120_000);
  let v: RunningVigil;
  let admin: string;
  let relay: net.Server | null = null;
  let port = 0;
  const sockets = new Set<net.Socket>();
  let p: AgentProcess | undefined;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-agent-away-'));

  const listen = () => new Promise<void>((resolve) => {
    relay = net.createServer((client) => {
      const upstream = net.connect(Number(new URL(v.url).port), '127.0.0.1');
      for (const s of [client, upstream]) { sockets.add(s); s.on('close', () => sockets.delete(s)); s.on('error', () => undefined); }
      client.pipe(upstream).pipe(client);
    });
    relay.listen(port, '127.0.0.1', () => { port = (relay!.address() as net.AddressInfo).port; resolve(); });
  });
  const goAway = async () => {
    await new Promise<void>((resolve) => { relay!.close(() => resolve()); for (const s of sockets) s.destroy(); });
    relay = null;
  };

  before(async () => {
    v = await startVigil({ env: { VIGIL_EMBEDDED_WORKER: 'false' }, overrides: { scanExecutor: null } });
    admin = await v.signIn();
    await listen();
  });
  after(async () => {
    await ensureStopped(p);
    if (relay) await goAway();
    await v?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('[S1.8.3-63] reconnects with a growing pause while the control plane is away, says hello again when it is back, and claims again', async () => {
    const key = await v.key(admin, { name: 'away-agent', scopes: ['agent'] });
    p = startAgentProcess({
      VIGIL_URL: `http://127.0.0.1:${port}`, VIGIL_AGENT_TOKEN: key.key, VIGIL_AGENT_TOKEN_FILE: '', VIGIL_AGENT_WORK_DIR: fs.mkdtempSync(path.join(tmp, 'work-')),
      VIGIL_AGENT_WAIT: '1s', VIGIL_AGENT_RETRY: '1s', VIGIL_AGENT_HEARTBEAT: '1s',
    });
    await p.waitFor((l) => l.message === 'Connected');
    await goAway();
    const away = (l: AgentLine) => l.message === 'The control plane is away or refused; retrying';
    await p.waitFor((l) => p!.lines.filter(away).length >= 3 && away(l), 30_000);
    const pauses = p.lines.filter(away).slice(0, 3).map((l) => Number(l.retryInMs));
    // VIGIL_AGENT_RETRY doubled at each failure, with a jitter of ±20 %: about 1 s, 2 s, 4 s.
    expect(pauses[0]).to.be.within(800, 1200);
    expect(pauses[1]).to.be.within(1600, 2400);
    expect(pauses[2]).to.be.within(3200, 4800);
    expect(p.child.exitCode, 'the agent keeps running').to.equal(null);
    const before = p.lines.filter((l) => l.message === 'Connected').length;
    await listen(); // the same port again
    await p.waitFor((l) => l.message === 'Connected' && p!.lines.filter((x) => x.message === 'Connected').length > before, 30_000);
    const repo = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/away/app', scanManualOnly: true } })).body.id;
    const scan = (await v.request('POST', `/repositories/${repo}/scan`, { token: admin, body: {} })).body.id;
    await p.waitFor((l) => l.message === 'Scan claimed' && l.scanId === scan, 30_000);
  });
});

/**
 * A lowered max_concurrent with a real vigil-agent process, without Docker: the scans' clones go to
 * an HTTP server on loopback that holds every request unanswered, so a claimed scan runs (its lease
 * renewed) until the spec answers its request with 404 (the clone fails, the agent reports it).
 */
describe('vigil-agent process and a lowered max_concurrent (spec 1 §4.7)', function () {
  this.timeout(180_000);
  let v: RunningVigil;
  let admin: string;
  let p: AgentProcess | undefined;
  const held = new Map<string, http.ServerResponse>();
  const server = http.createServer((req, res) => { held.set(String(req.url).split('/')[1], res); });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-agent-limit-'));

  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    v = await startVigil({ env: { VIGIL_EMBEDDED_WORKER: 'false' }, overrides: { scanExecutor: null } });
    admin = await v.signIn();
  });
  after(async () => {
    await ensureStopped(p);
    for (const res of held.values()) res.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections?.();
    await v?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const status = async (id: number) => (await v.request('GET', `/scans/${id}`, { token: admin })).body.scan.status as string;
  const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
  /** The clone failed on the agent (a 404), and its failure report reached the control plane. */
  const ended = async (id: number) => {
    await p!.waitFor((l) => l.message === 'Scan failed' && l.scanId === id, 60_000);
    const end = Date.now() + 30_000;
    while ((await status(id)) !== 'failed') {
      if (Date.now() > end) throw new Error(`scan ${id} was not reported failed`);
      await settle(100);
    }
  };

  it('[S1.4.7-17] [S1.4.7-15] lowered from 2 to 1 while two scans run: both go on to their end, and the next scan is claimed only when neither runs', async () => {
    const port = (server.address() as net.AddressInfo).port;
    const key = await v.key(admin, { name: 'limit-agent', scopes: ['agent'] });
    const scanOfRepo = async (name: string) => {
      const repo = (await v.request('POST', '/repositories', { token: admin, body: { url: `http://127.0.0.1:${port}/${name}/app.git`, scanManualOnly: true } })).body.id;
      const r = await v.request('POST', `/repositories/${repo}/scan`, { token: admin, body: {} });
      expect(r.status, r.text).to.equal(200);
      return r.body.id as number;
    };
    p = startAgentProcess({
      VIGIL_URL: v.url, VIGIL_AGENT_TOKEN: key.key, VIGIL_AGENT_TOKEN_FILE: '', VIGIL_AGENT_WORK_DIR: fs.mkdtempSync(path.join(tmp, 'work-')),
      VIGIL_AGENT_WAIT: '1s', VIGIL_AGENT_RETRY: '1s', VIGIL_AGENT_HEARTBEAT: '1s',
    });
    await p.waitFor((l) => l.message === 'Connected');
    expect((await v.request('PATCH', `/admin/agents/${key.id}`, { token: admin, body: { max_concurrent: 2 } })).status).to.equal(200);
    const first = await scanOfRepo('one');
    const second = await scanOfRepo('two');
    for (const id of [first, second]) await p.waitFor((l) => l.message === 'Scan claimed' && l.scanId === id);
    const claimedBoth = Date.now();
    while (held.size < 2 && Date.now() - claimedBoth < 30_000) await settle(100); // both clones are under way
    expect([...held.keys()].sort()).to.deep.equal(['one', 'two']);

    expect((await v.request('PATCH', `/admin/agents/${key.id}`, { token: admin, body: { max_concurrent: 1 } })).status).to.equal(200);
    const third = await scanOfRepo('three');
    await settle(3000);
    expect(await status(third), 'two run, the limit is 1: nothing more is claimed').to.equal('pending');
    expect([await status(first), await status(second)], 'nothing running is interrupted').to.deep.equal(['scanning', 'scanning']);
    expect(p.lines.filter((l) => l.message === 'Scan reported' || l.message === 'Scan failed')).to.have.length(0);

    held.get('one')!.writeHead(404).end();
    await ended(first);
    await settle(3000);
    expect(await status(third), 'one still runs, at the limit of 1').to.equal('pending');
    expect(await status(second)).to.equal('scanning');
    const heldByAgent = await v.database.db.knex('scan_leases').where({ worker: `agent:${key.id}` }).count({ n: '*' }).first();
    expect(Number(heldByAgent!.n)).to.equal(1);

    held.get('two')!.writeHead(404).end();
    await ended(second);
    await p.waitFor((l) => l.message === 'Scan claimed' && l.scanId === third, 30_000);
    const lines = p.lines.map((l) => `${l.message} ${String(l.scanId ?? '')}`);
    expect(lines.indexOf(`Scan claimed ${third}`)).to.be.greaterThan(lines.indexOf(`Scan failed ${second}`));
    held.get('three')?.writeHead(404).end();
  });
});
