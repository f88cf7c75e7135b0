import { allProjections } from '../../projections';
import { expect } from 'chai';
import { ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { linkNodeModules, runStages, StageRun } from '../support/dockerfile';
import { freePort } from '../support/free-port';

const ROOT = path.resolve(__dirname, '../..');
// npm's cache first (filled by this checkout's install), the registry only for what it lacks.
const NPM_ENV = { npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false', npm_config_loglevel: 'error', npm_config_audit: 'false', npm_config_fund: 'false' };

/**
 * Issue #15: the Dockerfile's stages, built with the local toolchain (no registry here to pull
 * node:20-bookworm-slim from): the build stage compiles (its `npm ci` stands in by linking this
 * checkout's install), the deps stage really runs `npm ci --omit=dev` (offline, from npm's cache),
 * then the final stage's files start with `npm start`, answer the HEALTHCHECK, stop on SIGTERM and
 * rebuild the projections, with no TypeScript, tsx or other development package present.
 */
describe('container image stages, built with the local toolchain', function () {
  this.timeout(300_000);
  let dir: string;
  let run: StageRun;
  let server: ChildProcess | undefined;
  after(() => {
    if (server?.pid) try { process.kill(-server.pid, 'SIGKILL'); } catch { /* already gone */ }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('[#15] the Dockerfile is multi-stage, runs as a user who is not root, checks its health and runs node dist/...', () => {
    const text = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(text.match(/^FROM /gm)).to.have.length(3);
    expect(text).to.match(/^USER node$/m);
    expect(text).to.match(/^HEALTHCHECK .*CMD \["node", "dist\/interfaces\/cli\/healthcheck\.js"\]$/m);
    expect(text).to.match(/^CMD \["node", "dist\/interfaces\/cli\/server\.js"\]$/m);
    expect(text).to.match(/npm ci --omit=dev/);
  });

  it('[#15] builds the stages; the result starts with npm start after npm ci --omit=dev, is healthy, drains on SIGTERM and rebuilds its projections', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'vigil-image-'));
    run = runStages(path.join(ROOT, 'Dockerfile'), ROOT, path.join(dir, 'stages'), {
      // What changes the image's own system (packages, /var/lib/vigil and its owner) is not done on this machine.
      skip: /^apt-get |^mkdir -p \/var\/lib\/vigil/,
      replace: (stage, command) => {
        if (stage === 'build' && command.startsWith('npm ci')) return linkNodeModules(ROOT);
        // The image empties its own npm cache; here that cache is the machine's, shared: kept.
        if (command.includes('&& npm cache clean')) return (cwd) => execFileSync('/bin/sh', ['-c', command.replace(/\s*&& npm cache clean.*$/, '')], { cwd, env: { ...process.env, ...NPM_ENV }, stdio: 'pipe' });
        return null;
      },
      env: NPM_ENV,
    });
    expect(run.skipped).to.have.length(4); // the build stage's npm ci (linked), the deps stage's cache cleaning, the final stage's apt-get and /var/lib/vigil
    const app = path.join(run.final.root, 'app');
    expect(run.final.user).to.equal('node');
    for (const devOnly of ['typescript', 'tsx', 'mocha', 'esbuild', '@redocly/cli', 'playwright-core']) {
      expect(existsSync(path.join(app, 'node_modules', devOnly)), `${devOnly} in the image`).to.equal(false);
    }
    for (const needed of ['express', 'helmet', 'prom-client', 'swagger-ui-dist', 'knex', 'winston']) expect(existsSync(path.join(app, 'node_modules', needed)), needed).to.equal(true);
    expect(existsSync(path.join(app, 'dist', 'interfaces', 'cli', 'server.js'))).to.equal(true);

    const port = await freePort();
    const data = path.join(dir, 'data');
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VIGIL_') && !k.startsWith('npm_')));
    const env = {
      ...base, ...run.final.env, VIGIL_PORT: String(port), VIGIL_HOST: '127.0.0.1', VIGIL_DATA_DIR: data, VIGIL_WORK_DIR: path.join(dir, 'work'),
      VIGIL_FEED_INTERVAL: '0s', VIGIL_BOOTSTRAP_USERNAME: 'admin', VIGIL_BOOTSTRAP_PASSWORD: 'correct-horse-battery', VIGIL_LOG_LEVEL: 'info',
    } as Record<string, string>;
    let output = '';
    // Its own process group, as in a terminal: the stop signal goes to npm and to the Node it started.
    server = spawn('npm', ['start'], { cwd: app, env, detached: true });
    server.stdout!.on('data', (d) => { output += d; });
    server.stderr!.on('data', (d) => { output += d; });
    const exited = new Promise<number | null>((resolve) => server!.on('exit', (code) => resolve(code)));
    const end = Date.now() + 120_000;
    let healthy = false;
    while (!healthy && Date.now() < end && server.exitCode === null) {
      healthy = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then((a) => a.status === 200, () => false);
      if (!healthy) await new Promise((r) => setTimeout(r, 500));
    }
    expect(healthy, output).to.equal(true);
    const check = spawnSync(run.final.healthcheck![0], run.final.healthcheck!.slice(1), { cwd: app, env });
    expect(check.status, String(check.stderr)).to.equal(0);
    const token = await fetch(`http://127.0.0.1:${port}/api/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'correct-horse-battery' }) });
    expect(token.status).to.equal(200);

    process.kill(-server.pid!, 'SIGTERM');
    await exited;
    const end2 = Date.now() + 60_000;
    while (!output.includes('"Stopped"') && Date.now() < end2) await new Promise((r) => setTimeout(r, 200));
    expect(output).to.contain('SIGTERM: stopping').and.contain('"Stopped"');
    const unhealthy = spawnSync(run.final.healthcheck![0], run.final.healthcheck!.slice(1), { cwd: app, env });
    expect(unhealthy.status).to.equal(1);

    const rebuilt = spawnSync('npm', ['run', 'projections:rebuild'], { cwd: app, env, encoding: 'utf8' });
    expect(rebuilt.status, `${rebuilt.stdout}\n${rebuilt.stderr}`).to.equal(0);
    // The result line names every projection rebuilt, in replay order (projections/index.ts).
    expect(rebuilt.stdout).to.contain(`Rebuilt ${allProjections.map((p) => p.name).join(', ')}`);
  });
});
