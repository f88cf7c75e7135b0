import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort, makeBareRepository, skipOrFail, waitForPort } from './support';

/**
 * Real authenticating git servers on loopback for the credential specs (git-credentials.spec.ts):
 * an HTTPS server that demands Basic authentication in front of git's own `git http-backend`
 * CGI, and an OpenSSH server with its own configuration, host key and authorised keys. Both serve
 * the bare repository of makeBareRepository. Nothing here is used outside spec/.
 */
export const HTTP_BACKEND = '/usr/lib/git-core/git-http-backend';
export const SSHD = '/usr/sbin/sshd';

export interface SeenRequest {
  method: string;
  path: string;
  authorization: string | undefined;
}

export interface HttpsGitServer {
  port: number;
  /** https://127.0.0.1:<port>/<name>. */
  url(name: string): string;
  /** The self-signed certificate, for git's GIT_SSL_CAINFO. */
  caFile: string;
  /** Every request received, in order. */
  requests: SeenRequest[];
  stop(): Promise<void>;
}

function cgiResponse(output: Buffer): { status: number; headers: Record<string, string>; body: Buffer } {
  let end = output.indexOf('\r\n\r\n');
  let skip = 4;
  if (end < 0) {
    end = output.indexOf('\n\n');
    skip = 2;
  }
  if (end < 0) return { status: 502, headers: {}, body: output };
  const headers: Record<string, string> = {};
  let status = 200;
  for (const line of output.subarray(0, end).toString('latin1').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
    else headers[name] = value;
  }
  return { status, headers, body: output.subarray(end + skip) };
}

/** Serves `app.git` over HTTPS to `username:token` only (401 with WWW-Authenticate otherwise). */
export async function startHttpsGitServer(username: string, token: string): Promise<HttpsGitServer> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-https-git-'));
  const repos = path.join(base, 'repos');
  fs.mkdirSync(repos);
  makeBareRepository(repos);
  const key = path.join(base, 'key.pem');
  const caFile = path.join(base, 'cert.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', caFile,
    '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
  ], { stdio: 'ignore' });
  const expected = `Basic ${Buffer.from(`${username}:${token}`).toString('base64')}`;
  const requests: SeenRequest[] = [];
  const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(caFile) }, (req, res) => {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    requests.push({ method: req.method ?? '', path: url.pathname, authorization: req.headers.authorization });
    if (req.headers.authorization !== expected) {
      req.resume();
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="vigil-spec"', 'Content-Type': 'text/plain' });
      res.end('authentication required\n');
      return;
    }
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH, HOME: base, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_PROJECT_ROOT: repos, GIT_HTTP_EXPORT_ALL: '1', PATH_INFO: decodeURIComponent(url.pathname), QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method, CONTENT_TYPE: req.headers['content-type'] ?? '', REMOTE_USER: username, REMOTE_ADDR: '127.0.0.1',
    };
    if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length'];
    if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = String(req.headers['content-encoding']);
    if (req.headers['git-protocol']) env.HTTP_GIT_PROTOCOL = String(req.headers['git-protocol']);
    const cgi = spawn(HTTP_BACKEND, [], { env, stdio: ['pipe', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    cgi.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    cgi.stdin.on('error', () => undefined);
    req.pipe(cgi.stdin);
    cgi.on('close', () => {
      const { status, headers, body } = cgiResponse(Buffer.concat(chunks));
      res.writeHead(status, headers);
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    caFile,
    requests,
    url: (name) => `https://127.0.0.1:${port}/${name}`,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}

export interface KeyPair {
  /** OpenSSH private key text. */
  privateKey: string;
  /** `ssh-ed25519 AAAA... comment`. */
  publicKey: string;
}

export function sshKeyPair(dir: string, name: string): KeyPair {
  const file = path.join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `vigil-spec-${name}`, '-f', file], { stdio: 'ignore' });
  return { privateKey: fs.readFileSync(file, 'utf8'), publicKey: fs.readFileSync(`${file}.pub`, 'utf8').trim() };
}

export interface SshGitServer {
  port: number;
  /** ssh://<current user>@127.0.0.1:<port>/<absolute path of name>. */
  url(name: string): string;
  /** The known_hosts line pinning this server's host key. */
  knownHosts: string;
  /** A key the server accepts, and one it does not know. */
  authorised: KeyPair;
  stranger: KeyPair;
  /** A host key this server does not have. */
  otherHostKey: KeyPair;
  /** What sshd logged (-e), for a failing test's message. */
  log(): string;
  stop(): Promise<void>;
}

/**
 * A real sshd on a free loopback port, as the current user (root: with PermitRootLogin
 * prohibit-password), with a temporary host key, authorised keys file and pid file, no password
 * or PAM login. The clone runs `git-upload-pack` through the user's own shell, like any forge.
 */
export async function startSshGitServer(): Promise<SshGitServer> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-ssh-git-'));
  makeBareRepository(base);
  const hostKey = sshKeyPair(base, 'host_ed25519');
  const otherHostKey = sshKeyPair(base, 'other_host_ed25519');
  const authorised = sshKeyPair(base, 'authorised');
  const stranger = sshKeyPair(base, 'stranger');
  fs.writeFileSync(path.join(base, 'authorized_keys'), `${authorised.publicKey}\n`, { mode: 0o600 });
  const port = await freePort();
  const user = os.userInfo().username;
  const config = path.join(base, 'sshd_config');
  fs.writeFileSync(config, [
    `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${path.join(base, 'host_ed25519')}`,
    `AuthorizedKeysFile ${path.join(base, 'authorized_keys')}`, `PidFile ${path.join(base, 'sshd.pid')}`,
    'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'UsePAM no', 'StrictModes no',
    'PermitRootLogin prohibit-password', `AllowUsers ${user}`, 'LogLevel VERBOSE', '',
  ].join('\n'));
  // sshd started by root wants its privilege-separation directory, which the service would create.
  if (process.getuid?.() === 0) fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  let log = '';
  const sshd: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  sshd.stderr!.setEncoding('utf8');
  sshd.stderr!.on('data', (chunk: string) => { log = (log + chunk).slice(-20_000); });
  const exited = new Promise((resolve) => sshd.once('exit', resolve));
  try {
    await Promise.race([waitForPort(port), exited.then(() => { throw new Error('sshd exited'); })]);
  } catch (error) {
    sshd.kill('SIGTERM');
    fs.rmSync(base, { recursive: true, force: true });
    throw new Error(`sshd did not start (${(error as Error).message}): ${log}`);
  }
  const pin = (key: KeyPair) => `[127.0.0.1]:${port} ${key.publicKey.split(' ').slice(0, 2).join(' ')}\n`;
  return {
    port,
    url: (name) => `ssh://${user}@127.0.0.1:${port}${path.join(base, name)}`,
    knownHosts: pin(hostKey),
    authorised,
    stranger,
    otherHostKey: { ...otherHostKey, publicKey: pin(otherHostKey).trim() },
    log: () => log,
    stop: async () => {
      if (sshd.exitCode === null) {
        sshd.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}

/**
 * In a before() hook of a suite that needs sshd: skips the suite with a message when
 * /usr/sbin/sshd is missing locally; fails under CI=true or when VIGIL_TEST_SSHD=1 says
 * scripts/ci/sshd.sh installed it.
 */
export function requireSshd(context: Mocha.Context): void {
  if (fs.existsSync(SSHD)) return;
  const problem = `${SSHD} is not installed (Debian package openssh-server; run bash scripts/ci/sshd.sh)`;
  skipOrFail(context, 'sshd', problem, process.env.CI === 'true' || process.env.VIGIL_TEST_SSHD === '1', 'VIGIL_TEST_SSHD=1 requires it');
}

export interface GitRecording {
  /** The git binary to hand to cloneRepository: a wrapper around the real git. */
  git: string;
  /** What the last run saw: its arguments, environment, stderr and the workspace's entries ("path mode type"). */
  argv(): string;
  env(): string;
  stderr(): string;
  files(): string[];
  /** Forgets the last run (then argv() is '' until git runs again). */
  reset(): void;
}

/**
 * A shell wrapper around the real git that records, for each run, the command line, the
 * environment, git's stderr, and the workspace's entries (two levels) while git runs.
 */
export function recordingGit(dir: string): GitRecording {
  const git = path.join(dir, 'git-wrapper');
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  fs.writeFileSync(git, [
    '#!/bin/sh',
    `log=${q(dir)}`,
    'printf "%s\\n" "$@" > "$log/argv"',
    'env > "$log/env"',
    'for last; do :; done',
    'find "$(dirname "$last")" -mindepth 1 -maxdepth 2 -printf "%P %m %y\\n" | sort > "$log/files"',
    'git "$@" 2> "$log/stderr"',
    'code=$?',
    'cat "$log/stderr" >&2',
    'exit $code',
    '',
  ].join('\n'), { mode: 0o755 });
  const read = (name: string) => (fs.existsSync(path.join(dir, name)) ? fs.readFileSync(path.join(dir, name), 'utf8') : '');
  return {
    git, argv: () => read('argv'), env: () => read('env'), stderr: () => read('stderr'), files: () => read('files').split('\n').filter(Boolean),
    reset: () => ['argv', 'env', 'stderr', 'files'].forEach((name) => fs.rmSync(path.join(dir, name), { force: true })),
  };
}
