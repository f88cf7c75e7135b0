import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import Docker from 'dockerode';
import { ScanFailure } from '../../../application/ports/scanning';

/**
 * Test support for the scanning specs: a real bare repository served on loopback by `git daemon`,
 * and the Docker engine check. Nothing here is used outside spec/.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd, encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'Spec', GIT_AUTHOR_EMAIL: 'spec@example.com', GIT_COMMITTER_NAME: 'Spec', GIT_COMMITTER_EMAIL: 'spec@example.com' },
  });
}

function write(root: string, files: Record<string, string>): void {
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), content);
  }
}

export interface GitServer {
  /** git://127.0.0.1:<port>/<name>. */
  url(name: string): string;
  port: number;
  /** Temporary directory of the served repositories. */
  base: string;
  stop(): Promise<void>;
}

/**
 * Makes the bare repository `<base>/app.git`: branch main (two commits: a Python app, a
 * Dockerfile, Terraform under infra/, TypeScript under services/api/, a file `secret.txt` and a
 * symbolic link `escape` to /etc), and branch develop adding `only-on-develop.go`.
 */
export function makeBareRepository(base: string): string {
  const work = path.join(base, 'work');
  fs.mkdirSync(work);
  git(work, 'init', '-q', '-b', 'main');
  write(work, { 'README.md': '# app\n', 'app/main.py': 'print("old")\n' });
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'first');
  write(work, {
    'app/main.py': 'print("hello")\n', Dockerfile: 'FROM scratch\n', 'infra/main.tf': 'resource "null_resource" "x" {}\n',
    'services/api/index.ts': 'export const x = 1;\n', 'services/api/package.json': '{}\n', 'secret.txt': 'not really\n',
  });
  fs.symlinkSync('/etc', path.join(work, 'escape'));
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'second');
  git(work, 'checkout', '-q', '-b', 'develop');
  write(work, { 'only-on-develop.go': 'package main\n' });
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'develop');
  git(base, 'clone', '-q', '--bare', work, path.join(base, 'app.git'));
  fs.rmSync(work, { recursive: true, force: true });
  return path.join(base, 'app.git');
}

/** Serves `app.git` (makeBareRepository) on loopback with `git daemon`. */
export async function startGitServer(): Promise<GitServer> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-git-'));
  makeBareRepository(base);
  const port = await freePort();
  const daemon: ChildProcess = spawn('git', [
    'daemon', '--export-all', '--informative-errors', '--reuseaddr', `--base-path=${base}`, '--listen=127.0.0.1', `--port=${port}`, base,
  ], { stdio: 'ignore' });
  await waitForPort(port);
  return {
    port,
    base,
    url: (name) => `git://127.0.0.1:${port}/${name}`,
    stop: async () => {
      daemon.kill('SIGTERM');
      await new Promise((resolve) => (daemon.exitCode !== null ? resolve(null) : daemon.once('exit', resolve)));
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}

export async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => { socket.destroy(); resolve(true); });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listened on port ${port}`);
}

/** A TCP server that accepts connections and never answers (a silent git server). */
export async function startSilentServer(): Promise<{ port: number; stop(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => { sockets.add(socket); socket.on('error', () => undefined); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    stop: () => new Promise((resolve) => { sockets.forEach((s) => s.destroy()); server.close(() => resolve()); }),
  };
}

export const STAND_INS = ['syft', 'grype', 'gitleaks', 'checkov', 'semgrep', 'probe', 'sleep', 'hog', 'fail', 'garbage', 'flood'] as const;
export const standIn = (name: (typeof STAND_INS)[number]) => `vigil-stand-in/${name}:test`;

/**
 * In a before() hook of a suite that needs the engine: skips the suite with a message when no
 * engine answers locally (or the stand-in images are missing); fails under CI=true or when
 * VIGIL_TEST_DOCKER=1 says the engine was prepared (scripts/ci/docker.sh).
 */
export async function requireDocker(context: Mocha.Context): Promise<Docker> {
  const docker = new Docker();
  const required = process.env.CI === 'true' || process.env.VIGIL_TEST_DOCKER === '1';
  let problem: string | null = null;
  try {
    await docker.ping();
    const missing: string[] = [];
    for (const name of STAND_INS) {
      try {
        await docker.getImage(standIn(name)).inspect();
      } catch {
        missing.push(standIn(name));
      }
    }
    if (missing.length) problem = `stand-in images missing (${missing.join(', ')}); run bash scripts/ci/docker.sh`;
  } catch (error) {
    problem = `no Docker engine answers (${(error as Error).message}); run bash scripts/ci/docker.sh`;
  }
  if (problem) skipOrFail(context, 'docker', problem, required, 'VIGIL_TEST_DOCKER=1 requires the engine');
  return docker;
}

/**
 * A suite's outside tool is missing: under CI (or when the setting says the tool was prepared)
 * that fails the run; on a developer's machine the suite is skipped with a line saying why.
 */
export function skipOrFail(context: Mocha.Context, tag: string, problem: string, required: boolean, requirement: string): void {
  if (required) throw new Error(`[${tag}] ${problem}. CI=true or ${requirement}.`);
  // eslint-disable-next-line no-console
  console.warn(`  [${tag}] ${problem}: skipping "${context.test?.parent?.fullTitle() ?? 'suite'}".`);
  context.skip();
}

/** The ScanFailure a promise rejects with (anything else fails the test). */
export async function failure(promise: Promise<unknown>): Promise<ScanFailure> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(ScanFailure);
    return error as ScanFailure;
  }
  throw new Error('expected a ScanFailure');
}
