import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import { CloneCredential, ScanTarget } from '../../../application/ports/scanning';
import { CloneGuard } from '../../../infrastructure/scanning/clone-guard';
import { cloneRepository, GitCloneOptions, withWorkspace } from '../../../infrastructure/scanning/git';
import { CREDENTIAL_DIR, shellQuote, sshOptionPath } from '../../../infrastructure/scanning/git-credentials';
import {
  GitRecording, HttpsGitServer, recordingGit, requireSshd, SshGitServer, startHttpsGitServer, startSshGitServer,
} from './git-servers';
import { failure } from './support';


/** Every file under `dir` (symbolic links not followed) whose content contains one of `needles`. */
function filesContaining(dir: string, needles: string[]): string[] {
  const hits: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (!entry.isFile()) continue;
    const content = fs.readFileSync(file).toString('latin1');
    if (needles.some((n) => content.includes(n))) hits.push(file);
  }
  return hits;
}

// A work directory whose name has a space, quotes, a backslash and a %-token: the key paths in
// GIT_SSH_COMMAND pass through sh and then ssh's own word splitting and token expansion.
const makeWorkDir = () => fs.mkdtempSync(path.join(os.tmpdir(), `vigil work 'q' "d" \\ %h $HOME `));

describe('Clones with a stored HTTPS token (infrastructure/scanning/git-credentials.ts)', function () {
  this.timeout(30_000);
  const username = 'vigil-bot';
  const token = 'glpat-Sp3cT0ken-xyzzy-0123456789';
  const basic = Buffer.from(`${username}:${token}`).toString('base64');
  let server: HttpsGitServer;
  let workDir: string;
  let scratch: string;
  let recording: GitRecording;
  let options: GitCloneOptions;
  const credential = (over: Partial<Extract<CloneCredential, { kind: 'https_token' }>> = {}): CloneCredential => ({
    kind: 'https_token', id: 7, host: `127.0.0.1:${server.port}`, username, token, ...over,
  });
  const target = (over: Partial<ScanTarget> = {}): ScanTarget => ({
    kind: 'repository', id: 1, url: server.url('app.git'), branch: 'main', subPath: '', credential: credential(), ...over,
  });
  const noSecret = (text: string, what: string) => {
    expect(text, what).to.not.include(token);
    expect(text, what).to.not.include(basic);
  };

  before(async () => {
    server = await startHttpsGitServer(username, token);
    workDir = makeWorkDir();
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-git-recording-'));
    recording = recordingGit(scratch);
    options = { guard: new CloneGuard({ allowedHosts: [] }), hostSsh: false, timeoutMs: 15_000, caFile: server.caFile, git: recording.git };
  });
  after(async () => {
    await server?.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
    fs.rmSync(scratch, { recursive: true, force: true });
  });
  beforeEach(() => server.requests.splice(0));
  afterEach(() => expect(fs.readdirSync(workDir), 'workspaces left behind').to.deep.equal([]));

  it('[S1.1-03] the right token clones the configured branch; the token is in git\'s environment only, never its command line, stderr or a file of the clone', async () => {
    await withWorkspace(workDir, '60', async (workspace) => {
      const { clone } = await cloneRepository(target({ branch: 'develop' }), workspace, options);
      expect(fs.existsSync(path.join(clone, 'only-on-develop.go'))).to.equal(true);
      expect(filesContaining(workspace.root, [token, basic]), 'files holding the token').to.deep.equal([]);
    });
    expect(server.requests.length).to.be.greaterThan(0);
    expect(server.requests.every((r) => r.authorization === `Basic ${basic}`), 'every request authenticated').to.equal(true);
    noSecret(recording.argv(), 'command line');
    noSecret(recording.stderr(), 'git stderr');
    expect(recording.env()).to.include(`GIT_CONFIG_KEY_0=http.https://127.0.0.1:${server.port}/.extraHeader`);
    expect(recording.env()).to.include(`GIT_CONFIG_VALUE_0=Authorization: Basic ${basic}`);
  });

  it('[S1.3.1-12] a wrong token is a permanent "authentication refused"; neither the token nor git\'s stderr shows it', async () => {
    const wrong = 'glpat-Wr0ngT0ken-plugh-9876543210';
    const f = await failure(withWorkspace(workDir, '61', (w) => cloneRepository(target({ credential: credential({ token: wrong }) }), w, options)));
    expect(f.kind).to.equal('permanent');
    expect(f.reason).to.match(/authentication refused \(the server did not accept the credential's user name and token\)/);
    expect(server.requests.length, 'git reached the server').to.be.greaterThan(0);
    for (const text of [f.reason, recording.stderr(), recording.argv()]) {
      expect(text).to.not.include(wrong);
      expect(text).to.not.include(Buffer.from(`${username}:${wrong}`).toString('base64'));
    }
  });

  it('[S1.3.1-14] a token bound to another host (name or port) is permanent and never sent: the server sees no request', async () => {
    for (const host of ['git.example.com', `127.0.0.1:${server.port + 1}`, '127.0.0.1']) {
      const f = await failure(withWorkspace(workDir, '62', (w) => cloneRepository(target({ credential: credential({ host }) }), w, options)));
      expect(f.kind, host).to.equal('permanent');
      expect(f.reason, host).to.include('credential bound to another host');
      noSecret(f.reason, host);
    }
    expect(server.requests, 'requests received').to.deep.equal([]);
  });

  it('[S1.3.1-14] the host comparison ignores case and reads an absent port as 443', async () => {
    await withWorkspace(workDir, '63', async (w) => {
      await cloneRepository(target({ url: `https://LocalHost:${server.port}/app.git`, credential: credential({ host: `LOCALHOST:${server.port}` }) }), w, options);
    });
    expect(server.requests.every((r) => r.authorization === `Basic ${basic}`)).to.equal(true);
    // Nothing is expected to answer on 443 here; what matters is that the token was handed to git for it.
    recording.reset();
    const f = await failure(withWorkspace(workDir, '64', (w) => cloneRepository(target({ url: 'https://127.0.0.1:443/app.git', credential: credential({ host: '127.0.0.1' }) }), w, { ...options, timeoutMs: 3000 })));
    expect(f.reason).to.not.include('credential bound to another host');
    expect(recording.env()).to.include('GIT_CONFIG_KEY_0=http.https://127.0.0.1/.extraHeader');
    noSecret(f.reason, 'reason');
  });

  it('[S1.3.1-14] a token is never sent over http, ssh or git: permanent "credential unusable" before git runs', async () => {
    for (const url of [`http://127.0.0.1:${server.port}/app.git`, `ssh://git@127.0.0.1:${server.port}/app.git`, `git://127.0.0.1:${server.port}/app.git`]) {
      const f = await failure(withWorkspace(workDir, '65', (w) => cloneRepository(target({ url }), w, options)));
      expect(f.kind, url).to.equal('permanent');
      expect(f.reason, url).to.include('credential unusable');
      noSecret(f.reason, url);
    }
    expect(server.requests).to.deep.equal([]);
  });

  it('[S1.3.1-14] a user name with ":" or a token with a line break is unusable, refused before git runs', async () => {
    for (const bad of [credential({ username: 'a:b' }), credential({ token: `${token}\nX-Evil: 1` }), credential({ token: '' })]) {
      const f = await failure(withWorkspace(workDir, '66', (w) => cloneRepository(target({ credential: bad }), w, options)));
      expect(f.kind).to.equal('permanent');
      expect(f.reason).to.include('credential unusable');
      noSecret(f.reason, 'reason');
    }
    expect(server.requests).to.deep.equal([]);
  });

  it('[S1.3.1-12] without a credential the private repository refuses the clone permanently', async () => {
    const f = await failure(withWorkspace(workDir, '67', (w) => cloneRepository(target({ credential: undefined }), w, options)));
    expect(f.kind).to.equal('permanent');
    expect(f.reason).to.include('authentication refused (the repository needs a credential)');
    expect(server.requests.every((r) => r.authorization === undefined)).to.equal(true);
  });

  it('[S1.3.1-14] an SSH key credential on an https URL is unusable (permanent)', async () => {
    const key: CloneCredential = { kind: 'ssh_key', id: 8, privateKey: 'x', knownHosts: '[127.0.0.1]:22 ssh-ed25519 AAAA' };
    const f = await failure(withWorkspace(workDir, '68', (w) => cloneRepository(target({ credential: key }), w, options)));
    expect(f.kind).to.equal('permanent');
    expect(f.reason).to.include('credential unusable');
    expect(server.requests).to.deep.equal([]);
  });
});

describe('Clones with a stored SSH key and pinned host keys (infrastructure/scanning/git-credentials.ts)', function () {
  this.timeout(30_000);
  let server: SshGitServer;
  let workDir: string;
  let scratch: string;
  let recording: GitRecording;
  let options: GitCloneOptions;
  const key = (over: Partial<Extract<CloneCredential, { kind: 'ssh_key' }>> = {}): CloneCredential => ({
    kind: 'ssh_key', id: 9, privateKey: server.authorised.privateKey, knownHosts: server.knownHosts, ...over,
  });
  const target = (over: Partial<ScanTarget> = {}): ScanTarget => ({
    kind: 'repository', id: 2, url: server.url('app.git'), branch: 'main', subPath: '', credential: key(), ...over,
  });
  /** The key and known_hosts existed (0600, in a 0700 directory beside src, not under it) while git ran, and are gone now. */
  const credentialFilesWhileGitRan = (root: string) => {
    expect(recording.files().filter((f) => f.startsWith(CREDENTIAL_DIR))).to.deep.equal([
      `${CREDENTIAL_DIR} 700 d`, `${CREDENTIAL_DIR}/id 600 f`, `${CREDENTIAL_DIR}/known_hosts 600 f`,
    ]);
    expect(fs.existsSync(path.join(root, CREDENTIAL_DIR)), 'credential files removed after git').to.equal(false);
  };

  before(async function () {
    requireSshd(this);
    server = await startSshGitServer();
    workDir = makeWorkDir();
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-git-recording-'));
    recording = recordingGit(scratch);
    // hostSsh false: a stored key must work without the host's identity.
    options = { guard: new CloneGuard({ allowedHosts: [] }), hostSsh: false, timeoutMs: 20_000, git: recording.git };
  });
  after(async () => {
    await server?.stop();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });
  afterEach(() => expect(fs.readdirSync(workDir), 'workspaces left behind').to.deep.equal([]));

  it('[S1.1-03] the authorised key with the pinned host key clones the configured branch; the key leaves the disk when git exits', async () => {
    await withWorkspace(workDir, '70', async (workspace) => {
      const { clone } = await cloneRepository(target({ branch: 'develop' }), workspace, options).catch((error: Error) => {
        throw new Error(`${error.message}\nsshd said: ${server.log()}`);
      });
      expect(fs.existsSync(path.join(clone, 'only-on-develop.go'))).to.equal(true);
      credentialFilesWhileGitRan(workspace.root);
      expect(fs.readdirSync(workspace.root), 'only the clone is left for the scanners').to.deep.equal(['src']);
      const command = /^GIT_SSH_COMMAND=(.*)$/m.exec(recording.env())?.[1] ?? '';
      expect(command).to.include(shellQuote(`IdentityFile=${sshOptionPath(path.join(workspace.root, CREDENTIAL_DIR, 'id'))}`));
      expect(command).to.include(shellQuote(`UserKnownHostsFile=${sshOptionPath(path.join(workspace.root, CREDENTIAL_DIR, 'known_hosts'))}`));
      for (const option of ['-F /dev/null', 'IdentitiesOnly=yes', 'IdentityAgent=none', 'GlobalKnownHostsFile=/dev/null', 'StrictHostKeyChecking=yes', 'BatchMode=yes']) {
        expect(command).to.include(option);
      }
      expect(recording.env()).to.not.match(/^SSH_AUTH_SOCK=/m);
      expect(recording.argv()).to.not.include('PRIVATE KEY');
    });
  });

  it('[S1.3.1-11] a host key that is not the pinned one (changed) or not pinned at all is a permanent "host key changed or unpinned"', async () => {
    const otherHost = server.otherHostKey.publicKey;
    const cases: Array<[string, string]> = [
      ['changed', `${otherHost}\n`],
      ['unpinned', `git.example.com ${otherHost.split(' ').slice(1).join(' ')}\n`],
      ['no line', '# nothing pinned\n'],
    ];
    for (const [name, knownHosts] of cases) {
      let root = '';
      const f = await failure(withWorkspace(workDir, '71', (w) => {
        root = w.root;
        return cloneRepository(target({ credential: key({ knownHosts }) }), w, options);
      }));
      expect(f.kind, name).to.equal('permanent');
      expect(f.reason, name).to.include('host key changed or unpinned');
      expect(fs.existsSync(root), name).to.equal(false);
    }
  });

  it('[S1.3.1-12] a key the server does not accept is a permanent "authentication refused"', async () => {
    let root = '';
    const f = await failure(withWorkspace(workDir, '72', (w) => {
      root = w.root;
      return cloneRepository(target({ credential: key({ privateKey: server.stranger.privateKey }) }), w, options).finally(() => credentialFilesWhileGitRan(w.root));
    }));
    expect(f.kind).to.equal('permanent');
    expect(f.reason).to.include("authentication refused (the server did not accept the credential's key)");
    expect(f.reason).to.not.include('PRIVATE KEY');
    expect(fs.existsSync(root)).to.equal(false);
  });

  it('[S1.3.1-14] a private key ssh cannot load (garbage, truncated, passphrase-protected) is a permanent "credential unusable"; git never runs', async () => {
    const protectedKey = path.join(scratch, 'protected');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'a passphrase', '-f', protectedKey], { stdio: 'ignore' });
    const lines = server.authorised.privateKey.trim().split('\n');
    const cases: Array<[string, string]> = [
      ['garbage', 'this is not a key\n'],
      ['truncated', [...lines.slice(0, 3), lines[lines.length - 1]].join('\n')],
      ['passphrase', fs.readFileSync(protectedKey, 'utf8')],
    ];
    for (const [name, privateKey] of cases) {
      recording.reset();
      const f = await failure(withWorkspace(workDir, '73', (w) => cloneRepository(target({ credential: key({ privateKey }) }), w, options)
        .finally(() => expect(fs.existsSync(path.join(w.root, CREDENTIAL_DIR)), name).to.equal(false))));
      expect(f.kind, name).to.equal('permanent');
      expect(f.reason, name).to.include('credential unusable: ssh cannot load the private key of credential 9');
      expect(f.reason, name).to.not.include('PRIVATE KEY');
      expect(recording.argv(), `${name}: git ran`).to.equal('');
    }
  });

  it('[S1.3.1-14] a key with CRLF line ends and no final line break (pasted through a form) still clones', async () => {
    const pasted = server.authorised.privateKey.trim().replace(/\n/g, '\r\n');
    await withWorkspace(workDir, '74', (w) => cloneRepository(target({ credential: key({ privateKey: pasted }) }), w, options));
  });

  it('[S1.8.3-34] with no credential and VIGIL_HOST_SSH false an ssh URL is refused permanently, before ssh runs', async () => {
    const f = await failure(withWorkspace(workDir, '75', (w) => cloneRepository(target({ credential: undefined }), w, options)));
    expect(f.kind).to.equal('permanent');
    expect(f.reason).to.include('VIGIL_HOST_SSH is false');
    const scp = await failure(withWorkspace(workDir, '76', (w) => cloneRepository(target({ url: 'git@127.0.0.1:app.git', credential: undefined }), w, options)));
    expect(scp.reason).to.include('VIGIL_HOST_SSH is false');
  });

  it('[S1.8.3-34] with no credential and VIGIL_HOST_SSH true the host\'s identity is used (its known_hosts lacks this server: permanent host key failure)', async () => {
    const f = await failure(withWorkspace(workDir, '77', (w) => cloneRepository(target({ credential: undefined }), w, { ...options, hostSsh: true })));
    expect(f.kind).to.equal('permanent');
    expect(f.reason).to.include("host key changed or unpinned (the server's host key is not in the scanning host's known_hosts)");
  });
});
