import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ScanFailure, ScanTarget } from '../../application/ports/scanning';
import { CloneGuard, CloneUrl, redactUrl } from './clone-guard';
import { scanFailure } from './failures';
import { CloneAccess, CloneAccessKind, prepareCloneAccess, scrubSecrets } from './git-credentials';

export { CloneGuard, parseAllowedHosts, parseCloneUrl, redactUrl, type GuardVerdict } from './clone-guard';

/**
 * Cloning a repository target into a fresh workspace with the real git binary (spec 1 §1.2: the
 * branch configured on the target, never a pipeline's commit; §2.2: the workspace lives under
 * the work directory and goes away after the scan).
 *
 *   git clone --depth 1 --branch <branch> --single-branch --no-tags -- <url> <workspace>/src
 *
 * run with child_process.spawn (no shell), LC_ALL=C (git's messages are read to classify a
 * failure), GIT_TERMINAL_PROMPT=0 (never waits for a password), no system or global git
 * configuration (an operator's `url.insteadOf` cannot redirect a clone around the guard), only the
 * https/http/ssh/git transports, no redirects, no hooks, and a time-out (default 10 minutes).
 *
 * Credentials (git-credentials.ts): the target's stored credential when it has one (an HTTPS token
 * bound to its host, handed over in git's environment; an SSH key with pinned host keys, written
 * beside the clone for the time git runs), else anonymous https/git, or for ssh the scanning host's
 * own identity when VIGIL_HOST_SSH is true. Host keys are always checked strictly. A token an
 * operator put in the URL still works; messages never show it.
 *
 * Failure classes (spec 1 §3.1), read from git's (and ssh's) stderr:
 * - permanent: branch absent, repository absent (404, "not found", "does not appear to be a git
 *   repository", a daemon's "not exported"), host key changed or unpinned ("REMOTE HOST
 *   IDENTIFICATION HAS CHANGED", "No ... host key is known", "Host key verification failed"),
 *   credential unusable (ssh cannot load the key: "Load key", "invalid format", "error in
 *   libcrypto"; or a credential that does not fit the URL), authentication refused (401/403,
 *   "Authentication failed", "could not read Username", "Permission denied (publickey)"), sub-path
 *   absent or leaving the clone, URL refused by the clone guard;
 * - transient: everything else: cannot resolve or connect, time-out, 5xx or 429, the connection
 *   cut, or a message not recognised (unclassified).
 */
export const DEFAULT_CLONE_TIMEOUT_MS = 10 * 60_000;
const MAX_STDERR = 64 * 1024;

export interface GitCloneOptions {
  guard: CloneGuard;
  /** VIGIL_HOST_SSH. */
  hostSsh: boolean;
  timeoutMs?: number;
  /** The git binary (default: git on PATH). */
  git?: string;
  /**
   * CA bundle git trusts for https (git's GIT_SSL_CAINFO). Default: GIT_SSL_CAINFO from Vigil's own
   * environment when set (an internal CA), else the system's bundle.
   */
  caFile?: string;
  /** An SSH key goes to a private ssh-agent, never to a file (git-credentials.ts). */
  sshKeyInMemory?: boolean;
}

export interface Workspace {
  /** The scan's own directory under the work directory. */
  root: string;
}

/**
 * Runs `fn` in a fresh workspace `<workDir>/scan-<label>-XXXXXX` (mode 0700) and removes it
 * afterwards, whatever `fn` did.
 */
export async function withWorkspace<T>(workDir: string, label: string, fn: (workspace: Workspace) => Promise<T>): Promise<T> {
  await fs.mkdir(workDir, { recursive: true });
  const root = await fs.mkdtemp(path.join(workDir, `scan-${label.replace(/[^A-Za-z0-9_-]/g, '_')}-`));
  try {
    return await fn({ root });
  } finally {
    await fs.rm(root, { recursive: true, force: true, maxRetries: 3 });
  }
}

interface GitRun {
  code: number | null;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
}

function runGit(git: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number, signal?: AbortSignal): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(git, args, { env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let stderr = '';
    let timedOut = false;
    let aborted = false;
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-MAX_STDERR);
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve({ code, stderr, timedOut, aborted });
    });
  });
}

const HOST_KEY_ADVICE: Record<CloneAccessKind, string> = {
  ssh_key: 'the server\'s host key is not among the host keys pinned on the credential',
  host_ssh: 'the server\'s host key is not in the scanning host\'s known_hosts',
  https_token: 'the server\'s host key is not pinned',
  none: 'the server\'s host key is not pinned',
};
const AUTH_ADVICE: Record<CloneAccessKind, string> = {
  https_token: 'the server did not accept the credential\'s user name and token',
  ssh_key: 'the server did not accept the credential\'s key',
  host_ssh: 'the server did not accept the scanning host\'s SSH identity',
  none: 'the repository needs a credential',
};

/** In this order: ssh reports an unloadable key and then, having no key left, "Permission denied". */
const PERMANENT: ReadonlyArray<[RegExp, (branch: string, access: CloneAccessKind) => string]> = [
  [/Remote branch .* not found in upstream|Could not find remote branch/i, (b) => `the branch "${b}" does not exist in the repository`],
  [/Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED|No \S+ host key is known|host key for .* has changed/i, (_, a) => `host key changed or unpinned (${HOST_KEY_ADVICE[a]})`],
  [/Load key .*:|invalid format|error in libcrypto|incorrect passphrase|bad permissions/i, () => 'credential unusable (ssh cannot load the private key: it is malformed, truncated or protected by a passphrase)'],
  [/Authentication failed|could not read (Username|Password)|Permission denied \(|returned error: 40[13]\b|HTTP Basic: Access denied|invalid username or password|terminal prompts disabled/i, (_, a) => `authentication refused (${AUTH_ADVICE[a]})`],
  [/repository '.*' not found|Repository not found|does not appear to be a git repository|access denied or repository not exported|returned error: 404\b|not found: did you run git update-server-info|No such repository|project you were looking for could not be found/i, () => 'the repository does not exist (or is not visible with this access)'],
];

const NETWORK = /Could not resolve host|Connection refused|Connection timed out|timed out|Failed to connect|Connection reset|unable to access|returned error: (5\d\d|429)\b|early EOF|RPC failed|remote end hung up|Network is unreachable|No route to host|SSL|TLS|Temporary failure in name resolution/i;

/** The line of git's stderr worth showing (fatal/error first), without URL secrets. */
function keyLine(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l && !/^Cloning into/i.test(l));
  const line = lines.find((l) => /^(fatal|error):/i.test(l)) ?? lines[lines.length - 1] ?? '';
  return redactUrl(line.replace(/(https?:\/\/)[^@\s/]+@/gi, '$1***@')).slice(0, 400);
}

/** A failed `git clone` as a ScanFailure, from its stderr (already scrubbed of the credential's secrets). */
export function classifyCloneFailure(stderr: string, url: string, branch: string, access: CloneAccessKind = 'none'): ScanFailure {
  const what = `Cloning ${redactUrl(url)} (branch ${branch}) failed`;
  for (const [pattern, reason] of PERMANENT) {
    if (pattern.test(stderr)) return scanFailure('permanent', `${what}: ${reason(branch, access)}. git said: ${keyLine(stderr)}`);
  }
  const kind = NETWORK.test(stderr) ? 'a network failure' : 'an unclassified git failure';
  return scanFailure('transient', `${what} with ${kind}. git said: ${keyLine(stderr) || '(nothing)'}`);
}

/** Built from nothing: no GIT_* variable, agent or proxy of Vigil's own environment reaches git unless listed here. */
function gitEnvironment(access: CloneAccess, caFile: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: 'C',
    LC_ALL: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_PROTOCOL_FROM_USER: '0',
    // ssh runs only as git-credentials.ts sets it (a stored key, or the host's identity when
    // VIGIL_HOST_SSH allows); should git ever reach for ssh otherwise, it fails instead.
    GIT_SSH_COMMAND: 'false',
  };
  const ca = caFile ?? process.env.GIT_SSL_CAINFO;
  if (ca) env.GIT_SSL_CAINFO = ca;
  return { ...env, ...access.env };
}

/** git -c options: allowed transports, no redirects, no hooks, http(s) pinned to the checked addresses. */
function gitConfig(url: CloneUrl, addresses: string[]): string[] {
  const config = [
    'protocol.allow=never', 'protocol.https.allow=always', 'protocol.http.allow=always', 'protocol.ssh.allow=always', 'protocol.git.allow=always',
    'http.followRedirects=false', 'core.hooksPath=/dev/null', 'credential.helper=', 'submodule.recurse=false',
  ];
  if ((url.scheme === 'https' || url.scheme === 'http') && addresses.length > 0 && addresses[0] !== url.host) {
    const port = url.port ?? (url.scheme === 'https' ? 443 : 80);
    const list = addresses.map((a) => (a.includes(':') ? `[${a}]` : a)).join(',');
    config.push(`http.curloptResolve=${url.host}:${port}:${list}`);
  }
  return config.flatMap((c) => ['-c', c]);
}

/** Rejects a sub-path that is absolute or climbs out ("..") before anything touches the disk. */
function subPathSegments(subPath: string): string[] {
  const text = subPath.replace(/\\/g, '/');
  if (text.startsWith('/')) throw scanFailure('permanent', `The sub-path "${subPath}" is absolute; it must be relative to the repository root.`);
  const segments = text.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw scanFailure('permanent', `The sub-path "${subPath}" contains ".."; it must stay inside the repository.`);
  return segments;
}

/** The directory to scan: the clone or its sub-path, which must exist, be a directory, and stay inside the clone (symbolic links included). */
export async function resolveSubPath(clone: string, subPath: string | undefined): Promise<string> {
  const segments = subPathSegments(subPath ?? '');
  if (segments.length === 0) return clone;
  const realClone = await fs.realpath(clone);
  let real: string;
  try {
    real = await fs.realpath(path.join(clone, ...segments));
  } catch {
    throw scanFailure('permanent', `The sub-path "${subPath}" does not exist on the cloned branch.`);
  }
  if (real !== realClone && !real.startsWith(realClone + path.sep)) {
    throw scanFailure('permanent', `The sub-path "${subPath}" leads outside the repository (a symbolic link).`);
  }
  if (!(await fs.stat(real)).isDirectory()) throw scanFailure('permanent', `The sub-path "${subPath}" is not a directory.`);
  return real;
}

export interface ClonedSource {
  /** The clone. */
  clone: string;
  /** The directory the scanners see: the clone or its sub-path. */
  source: string;
}

/**
 * Clones a repository target into `<workspace>/src` and answers the directory to scan. Checks the
 * URL with the clone guard first (a refusal is permanent). Throws ScanFailure.
 */
export async function cloneRepository(target: ScanTarget, workspace: Workspace, options: GitCloneOptions, signal?: AbortSignal): Promise<ClonedSource> {
  if (target.kind !== 'repository' || !target.url) throw scanFailure('permanent', 'The target has no clone URL.');
  const branch = (target.branch ?? '').trim();
  if (!branch || branch.startsWith('-') || /[\s\u0000-\u001f\u007f~^:?*[\\]|\.\.|@\{/.test(branch)) {
    throw scanFailure('permanent', `The branch "${target.branch ?? ''}" is not a valid branch name.`);
  }
  subPathSegments(target.subPath ?? '');
  const verdict = await options.guard.check(target.url);
  if (!verdict.allowed) throw scanFailure(verdict.permanent ? 'permanent' : 'transient', verdict.reason);
  const access = await prepareCloneAccess(target.credential, verdict.url, workspace.root, options.hostSsh, { sshKeyInMemory: options.sshKeyInMemory });
  const clone = path.join(workspace.root, 'src');
  const timeoutMs = options.timeoutMs ?? DEFAULT_CLONE_TIMEOUT_MS;
  const args = [
    ...gitConfig(verdict.url, verdict.addresses),
    'clone', '--depth', '1', '--branch', branch, '--single-branch', '--no-tags', '--template=', '--', target.url.trim(), clone,
  ];
  let run: GitRun;
  try {
    run = await runGit(options.git ?? 'git', args, gitEnvironment(access, options.caFile), timeoutMs, signal);
  } catch (error) {
    throw scanFailure('transient', `git could not be started: ${scrubSecrets((error as Error).message, access.secrets)}`);
  } finally {
    // The key and pinned host keys leave the disk before any scanner runs, not with the workspace.
    await access.dispose();
  }
  if (run.aborted) throw scanFailure('transient', 'The scan was interrupted during the clone (the worker is stopping).');
  if (run.timedOut) throw scanFailure('transient', `Cloning ${verdict.url.display} timed out after ${Math.round(timeoutMs / 1000)} s.`);
  if (run.code !== 0) throw classifyCloneFailure(scrubSecrets(run.stderr, access.secrets), target.url, branch, access.kind);
  return { clone, source: await resolveSubPath(clone, target.subPath) };
}
