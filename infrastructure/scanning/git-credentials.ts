import { execFile, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CloneCredential } from '../../application/ports/scanning';
import { normaliseTokenHost } from '../../domain/credentials/key-material';
import type { CloneUrl } from './clone-guard';
import { scanFailure } from './failures';

/**
 * How one clone authenticates (spec 1 §3.1, §8.3 VIGIL_HOST_SSH): the target's stored credential,
 * the scanning host's own SSH identity, or nothing (public https, git://).
 *
 * - https_token: handed to git only for an https URL whose host and port equal the credential's
 *   (a token bound to git.example.com never travels to another server, whatever the URL says). It
 *   goes in git's environment as `http.<https://host:port/>.extraHeader = Authorization: Basic ...`
 *   (GIT_CONFIG_COUNT/KEY/VALUE), never on the command line (world-readable in ps) nor in a file of
 *   the clone (.git/config is scanned and mounted into the scanners). The environment of a process
 *   is readable by its own user and root only.
 * - ssh_key: ssh or scp-like URLs only. The key (0600) and the pinned known_hosts lines go in a
 *   0700 directory of the workspace beside `src`, never under it (the scanners mount `src` or a
 *   sub-path of it), and are removed as soon as git exits, before any scanner runs. ssh reads no
 *   configuration file, no agent, no default identity and no host-wide known_hosts: only that key
 *   and those host keys, checked strictly.
 * - none: https/http/git anonymously; ssh with the host's own identity (keys, agent, known_hosts)
 *   when VIGIL_HOST_SSH is true, refused permanently otherwise.
 *
 * A credential that cannot be used with the URL fails permanently before git runs, with a reason
 * that never contains the secret.
 */
export type CloneAccessKind = 'https_token' | 'ssh_key' | 'host_ssh' | 'none';

export interface CloneAccess {
  kind: CloneAccessKind;
  /** Variables added to git's environment. */
  env: NodeJS.ProcessEnv;
  /** Texts that must never appear in a reason (the token and its encodings). */
  secrets: string[];
  /** Removes the files written for the clone; safe to call twice. */
  dispose(): Promise<void>;
}

/** The ssh command git runs for the host's own identity (VIGIL_HOST_SSH). */
export const HOST_SSH_COMMAND = 'ssh -o BatchMode=yes -o StrictHostKeyChecking=yes -o ConnectTimeout=30';
/** The directory of the workspace that holds an SSH credential while git runs. */
export const CREDENTIAL_DIR = 'git-credential';

const nothing = async () => undefined;

/** Quotes a word for the POSIX shell git runs GIT_SSH_COMMAND with. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * A path as the value of an ssh -o option: ssh splits option values into words (quotes and
 * backslashes as in sh, so a work directory with a space would become two files) and then expands
 * %-tokens (%% is a literal %). The result still needs shellQuote, since git hands GIT_SSH_COMMAND
 * to sh.
 */
export function sshOptionPath(file: string): string {
  return `"${file.replace(/%/g, '%%').replace(/[\\"]/g, '\\$&')}"`;
}

/**
 * Loads the key as ssh would, without a passphrase. ssh itself, in batch mode, skips a key it
 * cannot decrypt without saying why and then reports "Permission denied", which would read as
 * authentication refused; and a broken key should not reach the server at all.
 */
function checkKeyLoads(key: string, credentialId: number, display: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('ssh-keygen', ['-y', '-P', '', '-f', key], { env: { PATH: process.env.PATH, LC_ALL: 'C' }, timeout: 10_000 }, (error, _stdout, stderr) => {
      if (!error) return resolve();
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return reject(scanFailure('transient', 'ssh-keygen could not be started (is the OpenSSH client installed?).'));
      const why = String(stderr).replace(/Load key "[^"]*": /g, '').trim().split('\n')[0] || `exit ${error.code ?? error.signal}`;
      reject(scanFailure('permanent', `Cloning ${display}: credential unusable: ssh cannot load the private key of credential ${credentialId} (${why.slice(0, 200)}).`));
    });
  });
}

/**
 * The URL's host as a token is bound, by the rule the credential's host was saved with
 * (normaliseTokenHost): lower case, IPv6 in brackets, `:port` unless it is 443.
 */
function tokenHostOfUrl(url: CloneUrl): string {
  const host = (url.host.includes(':') ? `[${url.host}]` : url.host).replace(/\.$/, '');
  return url.port === null || url.port === 443 ? host : `${host}:${url.port}`;
}

function urlOrigin(url: CloneUrl): string {
  const host = url.host.includes(':') ? `[${url.host}]` : url.host;
  return `https://${host}${url.port === null ? '' : `:${url.port}`}/`;
}

function httpsToken(credential: Extract<CloneCredential, { kind: 'https_token' }>, url: CloneUrl): CloneAccess {
  const refuse = (why: string) => scanFailure('permanent', `Cloning ${url.display}: credential unusable: ${why}.`);
  if (url.scheme !== 'https') {
    throw refuse(`credential ${credential.id} is an HTTPS token and the URL is ${url.scheme}://; a token is only sent over https`);
  }
  let bound: string;
  try {
    bound = normaliseTokenHost(credential.host);
  } catch {
    throw refuse(`credential ${credential.id} is bound to no valid host`);
  }
  const named = tokenHostOfUrl(url);
  if (bound !== named) {
    throw scanFailure('permanent', `Cloning ${url.display}: credential bound to another host (credential ${credential.id} is for ${bound}, the URL names ${named}); the token was not sent.`);
  }
  // Basic authentication cannot carry a ":" in the user name, and a line break would end the header.
  if (!credential.username || /[:\r\n]/.test(credential.username)) throw refuse(`credential ${credential.id} has an empty user name or one containing ":" or a line break`);
  if (!credential.token || /[\r\n]/.test(credential.token)) throw refuse(`credential ${credential.id} has an empty token or one containing a line break`);
  const basic = Buffer.from(`${credential.username}:${credential.token}`, 'utf8').toString('base64');
  return {
    kind: 'https_token',
    env: {
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: `http.${urlOrigin(url)}.extraHeader`,
      GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}`,
    },
    secrets: [credential.token, basic, encodeURIComponent(credential.token)],
    dispose: nothing,
  };
}

/** OpenSSH refuses a private key without its final line break ("invalid format"); forms pasted through a browser often lose it or add CRs. */
function textFile(text: string): string {
  return `${text.replace(/\r\n?/g, '\n').trim()}\n`;
}

async function sshKey(credential: Extract<CloneCredential, { kind: 'ssh_key' }>, url: CloneUrl, workspaceRoot: string): Promise<CloneAccess> {
  if (url.scheme !== 'ssh') {
    throw scanFailure('permanent', `Cloning ${url.display}: credential unusable: credential ${credential.id} is an SSH key and the URL is ${url.scheme}://; use an ssh:// or user@host:path URL.`);
  }
  const pinned = textFile(credential.knownHosts ?? '');
  if (!pinned.split('\n').some((line) => line.trim() && !line.trim().startsWith('#'))) {
    throw scanFailure('permanent', `Cloning ${url.display}: host key changed or unpinned: credential ${credential.id} pins no host key (known_hosts lines are required).`);
  }
  if (!credential.privateKey?.trim()) throw scanFailure('permanent', `Cloning ${url.display}: credential unusable: credential ${credential.id} holds no private key.`);
  const dir = path.join(workspaceRoot, CREDENTIAL_DIR);
  // ssh expands ${NAME} in IdentityFile and UserKnownHostsFile and has no escape for it.
  if (dir.includes('${')) throw scanFailure('transient', `The work directory ${workspaceRoot} contains "\${", which ssh reads as an environment variable; set VIGIL_WORK_DIR to another directory.`);
  await fs.mkdir(dir, { mode: 0o700 });
  const dispose = () => fs.rm(dir, { recursive: true, force: true, maxRetries: 3 });
  try {
    const key = path.join(dir, 'id');
    const knownHosts = path.join(dir, 'known_hosts');
    // 'wx': a file planted there beforehand is an error, not something to write through.
    await fs.writeFile(key, textFile(credential.privateKey), { mode: 0o600, flag: 'wx' });
    await fs.writeFile(knownHosts, pinned, { mode: 0o600, flag: 'wx' });
    await checkKeyLoads(key, credential.id, url.display);
    const command = [
      'ssh', '-F', '/dev/null', '-o', shellQuote(`IdentityFile=${sshOptionPath(key)}`),
      '-o', 'IdentitiesOnly=yes', '-o', 'IdentityAgent=none', '-o', shellQuote(`UserKnownHostsFile=${sshOptionPath(knownHosts)}`),
      '-o', 'GlobalKnownHostsFile=/dev/null', '-o', 'StrictHostKeyChecking=yes', '-o', 'UpdateHostKeys=no', '-o', 'CheckHostIP=no',
      '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=30',
    ].join(' ');
    return { kind: 'ssh_key', env: { GIT_SSH_COMMAND: command }, secrets: [], dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/**
 * The SSH key held in memory (vigil-agent, S1.4.7-29): a private ssh-agent of this clone, listening
 * on a socket in a 0700 directory beside `src`, takes the key on its standard input (`ssh-add -`);
 * ssh asks it to sign and never reads a key file. Only the pinned host keys (public) are written.
 * The agent is stopped and the directory removed as soon as git exits.
 */
async function sshKeyInAgent(credential: Extract<CloneCredential, { kind: 'ssh_key' }>, url: CloneUrl, workspaceRoot: string): Promise<CloneAccess> {
  if (url.scheme !== 'ssh') {
    throw scanFailure('permanent', `Cloning ${url.display}: credential unusable: credential ${credential.id} is an SSH key and the URL is ${url.scheme}://; use an ssh:// or user@host:path URL.`);
  }
  const pinned = textFile(credential.knownHosts ?? '');
  if (!pinned.split('\n').some((line) => line.trim() && !line.trim().startsWith('#'))) {
    throw scanFailure('permanent', `Cloning ${url.display}: host key changed or unpinned: credential ${credential.id} pins no host key (known_hosts lines are required).`);
  }
  if (!credential.privateKey?.trim()) throw scanFailure('permanent', `Cloning ${url.display}: credential unusable: credential ${credential.id} holds no private key.`);
  const dir = path.join(workspaceRoot, CREDENTIAL_DIR);
  if (dir.includes('${')) throw scanFailure('transient', `The work directory ${workspaceRoot} contains "\${", which ssh reads as an environment variable; set VIGIL_AGENT_WORK_DIR to another directory.`);
  await fs.mkdir(dir, { mode: 0o700 });
  const socket = path.join(dir, 'agent.sock');
  const agent = spawn('ssh-agent', ['-D', '-a', socket], { env: { PATH: process.env.PATH }, stdio: 'ignore' });
  const dispose = async () => {
    agent.kill('SIGTERM');
    await fs.rm(dir, { recursive: true, force: true, maxRetries: 3 });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      agent.once('error', (e) => reject(scanFailure('transient', `ssh-agent could not be started (${e.message}).`)));
      const started = Date.now();
      const look = () => fs.stat(socket).then(() => resolve(), () => (Date.now() - started > 5000 ? reject(scanFailure('transient', 'ssh-agent did not start listening.')) : setTimeout(look, 20)));
      look();
    });
    await new Promise<void>((resolve, reject) => {
      const add = execFile('ssh-add', ['-q', '-'], { env: { PATH: process.env.PATH, SSH_AUTH_SOCK: socket, LC_ALL: 'C' }, timeout: 10_000 }, (error, _stdout, stderr) => {
        if (!error) return resolve();
        const why = String(stderr).trim().split('\n')[0] || `exit ${error.code ?? error.signal}`;
        reject(scanFailure('permanent', `Cloning ${url.display}: credential unusable: ssh cannot load the private key of credential ${credential.id} (${why.slice(0, 200)}).`));
      });
      add.stdin?.end(textFile(credential.privateKey));
    });
    const knownHosts = path.join(dir, 'known_hosts');
    await fs.writeFile(knownHosts, pinned, { mode: 0o600, flag: 'wx' });
    const command = [
      'ssh', '-F', '/dev/null', '-o', 'IdentityFile=none', '-o', 'IdentitiesOnly=no', '-o', shellQuote(`IdentityAgent=${sshOptionPath(socket)}`),
      '-o', shellQuote(`UserKnownHostsFile=${sshOptionPath(knownHosts)}`), '-o', 'GlobalKnownHostsFile=/dev/null', '-o', 'StrictHostKeyChecking=yes',
      '-o', 'UpdateHostKeys=no', '-o', 'CheckHostIP=no', '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=30',
    ].join(' ');
    return { kind: 'ssh_key', env: { GIT_SSH_COMMAND: command }, secrets: [], dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/**
 * What the clone of `url` authenticates with. Throws a permanent ScanFailure when the credential
 * does not fit the URL or an ssh URL has nothing to authenticate with.
 */
export async function prepareCloneAccess(credential: CloneCredential | undefined, url: CloneUrl, workspaceRoot: string, hostSsh: boolean, options: { sshKeyInMemory?: boolean } = {}): Promise<CloneAccess> {
  if (credential?.kind === 'https_token') return httpsToken(credential, url);
  if (credential?.kind === 'ssh_key') return options.sshKeyInMemory ? sshKeyInAgent(credential, url, workspaceRoot) : sshKey(credential, url, workspaceRoot);
  if (credential) throw scanFailure('permanent', `Cloning ${url.display}: credential unusable: unknown credential kind.`);
  if (url.scheme !== 'ssh') return { kind: 'none', env: {}, secrets: [], dispose: nothing };
  if (!hostSsh) {
    throw scanFailure('permanent', `Cloning ${url.display} needs an SSH identity: the target has no SSH key credential and VIGIL_HOST_SSH is false.`);
  }
  const env: NodeJS.ProcessEnv = { GIT_SSH_COMMAND: HOST_SSH_COMMAND };
  if (process.env.SSH_AUTH_SOCK) env.SSH_AUTH_SOCK = process.env.SSH_AUTH_SOCK;
  return { kind: 'host_ssh', env, secrets: [], dispose: nothing };
}

/** Replaces every secret in a text (git's stderr) before any of it reaches a reason. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.split(secret).join('***');
  return out;
}
