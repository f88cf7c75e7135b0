import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { seedFindings } from '../../support/backlog';
import { RunningVigil, startVigil } from '../../support/vigil';

const PACKAGE = path.resolve(__dirname, '../../../packages/vigil-gate');
const exec = promisify(execFile);

interface Run { code: number | null; stdout: string; stderr: string }

/** A command as a CI job runs it: its own process, only the environment given (no VIGIL_* of ours). */
function runCommand(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VIGIL_') && !k.startsWith('GITHUB_'))) as Record<string, string>;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...base, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Issue #15: vigil-gate is a package of its own: packed, run with npx from the tarball, and as one file. */
describe('vigil-gate package (npm pack, npx, single file)', function () {
  this.timeout(180_000);
  let v: RunningVigil;
  let dir: string;
  let tarball: string;
  let key: string;
  let red: number;
  let green: number;
  const version = JSON.parse(readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')).version as string;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'vigil-gate-pkg-'));
    const packed = await exec('npm', ['pack', '--pack-destination', dir, '--json'], { cwd: PACKAGE });
    tarball = path.join(dir, JSON.parse(packed.stdout)[0].filename);
    v = await startVigil();
    const admin = await v.signIn();
    key = (await v.key(admin, { name: 'ci', scopes: ['scan'] })).key;
    red = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/pkg/red' } })).body.id;
    green = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/pkg/green' } })).body.id;
    for (const id of [red, green]) {
      const now = v.services.clock.now();
      const at = now.toISOString();
      const of = { id: 900_000 + id, targetKind: 'repository', targetId: id };
      await v.services.commands.appendAll([{ stream: `scan-${of.id}`, expectedRevision: 'no_stream', events: [
        { type: 'ScanRequested', data: { ...of, trigger: 'manual', requiresCredential: false, requestedBy: null, requestedAt: at } },
        { type: 'ScanClaimed', data: { ...of, attempt: 1, worker: 'spec', claimedAt: at, leaseExpiresAt: at } },
        { type: 'ScanCompleted', data: { ...of, attempt: 1, worker: 'spec', completedAt: at, duration: 'PT1S', steps: {}, detectedLanguages: null, createdCount: 0, resolvedCount: 0, reopenedCount: 0, disallowedLicences: [] } },
      ] }], { actor: null, now });
    }
    await seedFindings(v, { kind: 'repository', id: red }, [{ ruleId: 'generic-api-key', severity: 'high', path: 'src/config.ts', line: 12 }], { toolKey: 'scanner:secrets', type: 'secret' });
    await seedFindings(v, { kind: 'repository', id: red }, [{ ruleId: 'CVE-2026-4000', severity: 'critical', packageName: 'openssl' }]);
  });
  after(async () => {
    await v?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('[#15] the tarball holds only the single-file build and the README, with no dependency', async () => {
    const listing = (await exec('tar', ['-tzf', tarball])).stdout.trim().split('\n').sort();
    expect(listing).to.deep.equal(['package/README.md', 'package/dist/vigil-gate.js', 'package/package.json']);
    const manifest = JSON.parse((await exec('tar', ['-xzOf', tarball, 'package/package.json'])).stdout);
    expect(manifest.dependencies ?? {}).to.deep.equal({});
    expect(manifest.bin).to.deep.equal({ 'vigil-gate': 'dist/vigil-gate.js' });
    const bundle = (await exec('tar', ['-xzOf', tarball, 'package/dist/vigil-gate.js'])).stdout;
    expect(bundle.startsWith('#!/usr/bin/env node')).to.equal(true);
    const required = [...bundle.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
    expect(required.every((r) => r.startsWith('node:')), required.join(', ')).to.equal(true);
  });

  it('[#15] npx runs it from the tarball, offline: --version, then a red verdict as GitHub annotations with file and line, SARIF and JUnit files, exit 1', async () => {
    const env = { npm_config_cache: path.join(dir, 'npm-cache'), npm_config_update_notifier: 'false' };
    const shown = await runCommand('npx', ['--yes', '--offline', '--package', tarball, 'vigil-gate', '--version'], dir, env);
    expect(shown.code, shown.stderr).to.equal(0);
    expect(shown.stdout.trim()).to.equal(version);

    const summaryFile = path.join(dir, 'step-summary.md');
    const r = await runCommand('npx', ['--yes', '--offline', '--package', tarball, 'vigil-gate', '--repository-id', String(red), '--format', 'github',
      '--output', `sarif=${path.join(dir, 'gate.sarif')}`, '--output', `junit=${path.join(dir, 'gate.xml')}`], dir,
    { ...env, VIGIL_URL: v.url, VIGIL_GATE_KEY: key, GITHUB_STEP_SUMMARY: summaryFile });
    expect(r.code, r.stderr).to.equal(1);
    const lines = r.stdout.split('\n');
    expect(lines.some((l) => /^::error file=src\/config\.ts,line=12,title=Vigil gate%3A severity generic-api-key::.+\(Vigil issue \d+\)$/.test(l)), r.stdout).to.equal(true);
    expect(lines.some((l) => /^::error title=Vigil gate%3A severity CVE-2026-4000 in openssl::/.test(l))).to.equal(true);
    expect(r.stdout).to.contain('Result: failed (exit 1)');
    expect(readFileSync(summaryFile, 'utf8')).to.contain('### Vigil gate: ❌ failed').and.contain('src/config.ts:12');
    const sarif = JSON.parse(readFileSync(path.join(dir, 'gate.sarif'), 'utf8'));
    const located = sarif.runs[0].results.find((x: { locations?: unknown }) => x.locations);
    expect(located.locations[0].physicalLocation).to.deep.equal({ artifactLocation: { uri: 'src/config.ts' }, region: { startLine: 12 } });
    expect(readFileSync(path.join(dir, 'gate.xml'), 'utf8')).to.contain('failures="2"');
  });

  it('[#15] the single file alone, copied anywhere, runs with node: exit 0 passed, 3 advisory red, 2 not asked', async () => {
    const alone = mkdtempSync(path.join(dir, 'alone-'));
    copyFileSync(path.join(PACKAGE, 'dist', 'vigil-gate.js'), path.join(alone, 'vigil-gate.js'));
    expect(existsSync(path.join(alone, 'node_modules'))).to.equal(false);
    const env = { VIGIL_URL: v.url, VIGIL_GATE_KEY: key };
    const pass = await runCommand(process.execPath, ['vigil-gate.js', '--repository-id', String(green), '--format', 'json'], alone, env);
    expect(pass.code, pass.stderr).to.equal(0);
    expect(JSON.parse(pass.stdout).passed).to.equal(true);
    const advisory = await runCommand(process.execPath, ['vigil-gate.js', '--repository-id', String(red), '--advisory', '--format', 'junit'], alone, env);
    expect(advisory.code).to.equal(3);
    expect(advisory.stdout).to.contain('<testsuites name="vigil-gate"');
    const bad = await runCommand(process.execPath, ['vigil-gate.js', '--repository-id', String(red), '--format', 'yaml'], alone, env);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.contain('--format takes one of text, json, sarif, junit, github');
    writeFileSync(path.join(alone, 'ignored'), '');
  });
});
