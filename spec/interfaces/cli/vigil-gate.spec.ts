import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseOptions } from '../../../interfaces/cli/vigil-gate';
import { seedFindings } from '../../support/backlog';
import { RunningVigil, startVigil } from '../../support/vigil';

const CLI = path.resolve(__dirname, '../../../interfaces/cli/vigil-gate.ts');

interface Run { code: number | null; stdout: string; stderr: string }

/** Runs the client as a pipeline would: a separate node process, only the environment given. */
function gateCli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VIGIL_'))) as Record<string, string>;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { env: { ...base, ...env }, cwd: path.resolve(__dirname, '../../..') });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('vigil-gate command-line client', function () {
  this.timeout(60_000);
  let v: RunningVigil;
  let admin: string;
  let key: string;
  let readKey: string;
  let green: number;
  let red: number;
  let dir: string;
  let keyFile: string;

  const verdictRows = async () => Number((await v.database.db.knex('gate_verdicts').count({ n: '*' }).first())!.n);
  let scanIds = 800_000;
  /** A completed scan of the repository: the scans context's events when its read model exists, else the gate's interim stream. */
  const observed = async (id: number) => {
    const now = v.services.clock.now();
    const at = now.toISOString();
    const of = { id: ++scanIds, targetKind: 'repository', targetId: id };
    const append = {
      stream: `scan-${of.id}`, expectedRevision: 'no_stream' as const, events: [
        { type: 'ScanRequested', data: { ...of, trigger: 'manual', requiresCredential: false, requestedBy: null, requestedAt: at } },
        { type: 'ScanClaimed', data: { ...of, attempt: 1, worker: 'spec', claimedAt: at, leaseExpiresAt: at } },
        { type: 'ScanCompleted', data: { ...of, attempt: 1, worker: 'spec', completedAt: at, duration: 'PT1S', steps: {}, detectedLanguages: null, createdCount: 0, resolvedCount: 0, reopenedCount: 0, disallowedLicences: [] } },
      ],
    };
    await v.services.commands.appendAll([append], { actor: null, now });
  };

  before(async () => {
    v = await startVigil();
    admin = await v.signIn();
    key = (await v.key(admin, { name: 'ci', scopes: ['scan'] })).key;
    readKey = (await v.key(admin, { name: 'read', scopes: ['read'] })).key;
    green = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/cli/green' } })).body.id;
    red = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/cli/red', branch: 'release' } })).body.id;
    await observed(green);
    await observed(red);
    await seedFindings(v, { kind: 'repository', id: green }, [{ ruleId: 'CVE-2026-1000', severity: 'low' }]);
    await seedFindings(v, { kind: 'repository', id: red }, [
      { ruleId: 'CVE-2026-2000', severity: 'critical', packageName: 'openssl' },
      { ruleId: 'CVE-2026-2001', severity: 'high', packageName: 'zlib' },
      { ruleId: 'CVE-2026-2002', severity: 'medium', packageName: 'libpng' },
    ]);
    dir = mkdtempSync(path.join(tmpdir(), 'vigil-gate-'));
    keyFile = path.join(dir, 'gate.key');
    writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await v.stop();
  });

  it('[S1.4.1-10] [S1.4.1-14] exits 0 on a passing verdict, asking POST /gate once (VIGIL_URL, VIGIL_GATE_KEY)', async () => {
    const before = await verdictRows();
    const r = await gateCli(['--repository-id', String(green)], { VIGIL_URL: v.url, VIGIL_GATE_KEY: key });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(new RegExp(`^Vigil gate for repository ${green}: PASSED`));
    expect(r.stdout).to.contain('Policy: include_triaged=false fixable_only=false severity=high include_plugins=false');
    expect(r.stdout).to.contain('Result: passed (exit 0)');
    expect(await verdictRows()).to.equal(before + 1);
  });

  it('[S1.4.1-11] [S1.4.1-14] exits 1 on a failed verdict and lists rule, severity, identifier, package and issue id (--url, --key-file)', async () => {
    const ids = (await v.request('GET', `/issues?repository_id=${red}`, { token: admin })).body as Array<{ id: number; identifier: string }>;
    const idOf = (identifier: string) => ids.find((i) => i.identifier === identifier)!.id;
    const before = await verdictRows();
    const r = await gateCli(['--url', `${v.url}/`, '--key-file', keyFile, '--repository-id', String(red)]);
    expect(r.code, r.stderr).to.equal(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).to.match(new RegExp(`^Vigil gate for repository ${red}: FAILED \\(verdict \\d+\\)$`));
    expect(lines).to.include('Violations (2):');
    expect(lines.find((l) => l.includes('CVE-2026-2000'))!.trim().split(/\s+/)).to.deep.equal(['severity', 'critical', 'CVE-2026-2000', 'openssl', String(idOf('CVE-2026-2000'))]);
    expect(lines.find((l) => l.includes('CVE-2026-2001'))!.trim().split(/\s+/)).to.deep.equal(['severity', 'high', 'CVE-2026-2001', 'zlib', String(idOf('CVE-2026-2001'))]);
    expect(r.stdout).not.to.contain('CVE-2026-2002');
    expect(lines[lines.length - 1]).to.equal('Result: failed (exit 1)');
    expect(lines.length).to.be.lessThan(25);
    expect(await verdictRows()).to.equal(before + 1);
  });

  it('[S1.4.1-13] exits 3 on a red verdict in advisory mode, 0 on a green one', async () => {
    const redRun = await gateCli(['--url', v.url, '--key', key, '--repository-id', String(red), '--advisory']);
    expect(redRun.code, redRun.stderr).to.equal(3);
    expect(redRun.stdout).to.contain('Result: failed, accepted in advisory mode (exit 3)');
    const greenRun = await gateCli(['--url', v.url, '--key', key, '--repository-id', String(green), '--advisory']);
    expect(greenRun.code).to.equal(0);
  });

  it('passes the policy flags and the {repositoryUrl, branch} form to the gate', async () => {
    const critical = await gateCli(['--url', v.url, '--key-file', keyFile, '--repository-url', 'https://git.example/cli/red.git', '--branch', 'release', '--severity', 'critical']);
    expect(critical.code, critical.stderr).to.equal(1);
    expect(critical.stdout).to.contain('severity=critical');
    expect(critical.stdout).to.contain('Violations (1):');
    const low = await gateCli(['--url', v.url, '--key-file', keyFile, '--repository-id', String(green), '--severity', 'low', '--include-triaged', '--fixable-only', '--include-plugins']);
    expect(low.stdout).to.contain('include_triaged=true fixable_only=true severity=low include_plugins=true');
    expect(low.code).to.equal(0); // the low issue has no known fix: fixable_only leaves it out
    const json = await gateCli(['--url', v.url, '--key-file', keyFile, '--repository-id', String(red), '--json']);
    expect(json.code).to.equal(1);
    expect(JSON.parse(json.stdout)).to.deep.include({ passed: false, targetKind: 'repository', targetId: red });
  });

  it('[S1.7-30] a target never scanned fails with the observation reason on screen', async () => {
    const fresh = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/cli/fresh' } })).body.id;
    const r = await gateCli(['--url', v.url, '--key', key, '--repository-id', String(fresh)]);
    expect(r.code).to.equal(1);
    expect(r.stdout).to.match(/\n {2}observation +No scan of the target has completed\n/);
  });

  it('shows one screen: twenty violations and how many more', async () => {
    const busy = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/cli/busy' } })).body.id;
    await observed(busy);
    await seedFindings(v, { kind: 'repository', id: busy }, Array.from({ length: 30 }, (_, i) => ({ ruleId: `CVE-2026-3${String(i).padStart(3, '0')}`, severity: 'high' as const })));
    const r = await gateCli(['--url', v.url, '--key', key, '--repository-id', String(busy)]);
    expect(r.code).to.equal(1);
    expect(r.stdout.split('\n').filter((l) => l.includes('CVE-2026-3'))).to.have.length(20);
    expect(r.stdout).to.contain('… and 10 more');
  });

  describe('[S1.4.1-12] exits 2 when the gate could not be asked', () => {
    it('a bad key (401), a key without scope scan (403), an unknown target (404), a bad severity (400): nothing recorded', async () => {
      const before = await verdictRows();
      const cases: Array<[string[], RegExp]> = [
        [['--key', 'vgl_k_wrong', '--repository-id', String(green)], /answered 401/],
        [['--key', readKey, '--repository-id', String(green)], /answered 403: This key lacks scope scan/],
        [['--key', key, '--repository-id', '999999'], /answered 404/],
        [['--key', key, '--repository-url', 'https://git.example/cli/red'], /answered 404/], // red is registered on branch release, not main
        [['--key', key, '--repository-id', String(green), '--severity', 'urgent'], /answered 400: Unknown severity/],
      ];
      for (const [args, message] of cases) {
        const r = await gateCli(['--url', v.url, ...args]);
        expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).to.equal(2);
        expect(r.stderr).to.match(message);
        expect(r.stderr).to.contain('Result: not asked (exit 2)');
        expect(r.stdout).to.equal('');
      }
      expect(await verdictRows()).to.equal(before);
    });

    it('no server listening, no URL, no key, no target, an unreadable key file', async () => {
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const unreachable = await gateCli(['--url', `http://127.0.0.1:${port}`, '--key', key, '--repository-id', '1']);
      expect(unreachable.code).to.equal(2);
      expect(unreachable.stderr).to.match(/ECONNREFUSED/);
      expect((await gateCli(['--key', key, '--repository-id', '1'])).code).to.equal(2);
      const noKey = await gateCli(['--url', v.url, '--repository-id', '1']);
      expect(noKey.code).to.equal(2);
      expect(noKey.stderr).to.match(/gate key/);
      expect((await gateCli(['--url', v.url, '--key', key])).code).to.equal(2);
      const missingFile = await gateCli(['--url', v.url, '--key-file', path.join(dir, 'absent'), '--repository-id', '1']);
      expect(missingFile.code).to.equal(2);
      expect(missingFile.stderr).to.match(/ENOENT/);
      expect(missingFile.stderr).not.to.contain(key);
    });
  });

  describe('--wait-for-scan', () => {
    it('[S1.8.2-18] waits up to 1800 s by default, polling every 10 s', () => {
      const o = parseOptions(['--url', 'https://vigil.example', '--key', 'k', '--repository-id', '1', '--wait-for-scan'], {});
      expect(o).to.include({ waitForScan: true, waitTimeoutMs: 1_800_000, pollIntervalMs: 10_000, url: 'https://vigil.example/api/v1' });
    });

    it('against this Vigil: nothing pending, or no GET /scans yet (404: says there is nothing to wait for), then asks the gate', async () => {
      const listed = await v.request('GET', `/scans?repo_id=${green}&limit=20`, { token: admin });
      const r = await gateCli(['--url', v.url, '--key', key, '--repository-id', String(green), '--wait-for-scan']);
      expect(r.code, r.stderr).to.equal(0);
      if (listed.status === 404) expect(r.stdout).to.contain('GET /scans answered 404); nothing to wait for');
      // The gate key has scope scan only: listing scans needs read as well.
      else expect(r.stdout).to.contain('the key may not list scans (it needs scope read as well); not waiting');
    });

    describe('against a Vigil that lists scans', () => {
      let server: http.Server;
      let url: string;
      let pendingPolls: number;
      const calls: string[] = [];

      before(async () => {
        server = http.createServer((req, res) => {
          calls.push(`${req.method} ${req.url}`);
          res.setHeader('content-type', 'application/json');
          if (req.method === 'GET' && req.url!.startsWith('/api/v1/scans?repo_id=7')) {
            pendingPolls -= 1;
            res.end(JSON.stringify(pendingPolls >= 0 ? [{ id: 2, status: 'scanning' }, { id: 1, status: 'completed' }] : [{ id: 2, status: 'completed' }]));
          } else if (req.method === 'POST' && req.url === '/api/v1/gate') {
            res.end(JSON.stringify({ id: 1, targetKind: 'repository', targetId: 7, passed: true, violations: [], policy: {} }));
          } else {
            res.statusCode = 404;
            res.end('{}');
          }
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      });
      after(async () => { await new Promise<void>((resolve) => server.close(() => resolve())); });
      beforeEach(() => { calls.length = 0; });

      it('polls until no scan is pending or running, then asks once', async () => {
        pendingPolls = 2;
        const r = await gateCli(['--url', url, '--key', 'k', '--repository-id', '7', '--wait-for-scan', '--poll-interval', '0.05']);
        expect(r.code, r.stderr).to.equal(0);
        expect(calls.filter((c) => c.startsWith('GET /api/v1/scans'))).to.have.length(3);
        expect(calls.filter((c) => c === 'POST /api/v1/gate')).to.have.length(1);
        expect(calls[calls.length - 1]).to.equal('POST /api/v1/gate');
        expect(r.stdout).to.contain('1 scan(s) pending or running on repository 7');
        expect(r.stdout).to.contain('no scan pending or running any more');
      });

      it('after the wait times out, says so and asks the gate anyway', async () => {
        pendingPolls = 1_000;
        const r = await gateCli(['--url', url, '--key', 'k', '--repository-id', '7', '--wait-for-scan', '--poll-interval', '0.05', '--wait-timeout', '0.2']);
        expect(r.code, r.stderr).to.equal(0);
        expect(r.stdout).to.contain('still pending or running after 0.2 s; asking the gate anyway');
        expect(calls.filter((c) => c === 'POST /api/v1/gate')).to.have.length(1);
      });
    });
  });
});
