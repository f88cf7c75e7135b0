import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import { CloneCredential, ScanTarget } from '../../../application/ports/scanning';
import { CloneGuard } from '../../../infrastructure/scanning/clone-guard';
import { cloneRepository, GitCloneOptions, withWorkspace } from '../../../infrastructure/scanning/git';
import { CREDENTIAL_DIR } from '../../../infrastructure/scanning/git-credentials';
import { GitRecording, recordingGit, requireSshd, SshGitServer, startSshGitServer } from './git-servers';
import { failure } from './support';

/**
 * vigil-agent's SSH clone (issue #12, S1.4.7-29): a delegated deployment key is handed to a private
 * ssh-agent on its standard input, never written to a file; only the pinned host keys (public) and the
 * agent's socket exist beside the clone while git runs, and are gone after it. A real sshd on loopback.
 */
describe('SSH clone with the key held in memory (infrastructure/scanning/git-credentials.ts, sshKeyInMemory)', function () {
  this.timeout(60_000);
  let server: SshGitServer;
  let workDir: string;
  let scratch: string;
  let recording: GitRecording;
  let options: GitCloneOptions;
  const key = (over: Partial<Extract<CloneCredential, { kind: 'ssh_key' }>> = {}): CloneCredential => ({
    kind: 'ssh_key', id: 9, privateKey: server.authorised.privateKey, knownHosts: server.knownHosts, ...over,
  });
  const target = (over: Partial<ScanTarget> = {}): ScanTarget => ({ kind: 'repository', id: 2, url: server.url('app.git'), branch: 'main', subPath: '', credential: key(), ...over });

  before(async function () {
    requireSshd(this);
    server = await startSshGitServer();
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-agent-work-'));
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-git-recording-'));
    recording = recordingGit(scratch);
    options = { guard: new CloneGuard({ allowedHosts: [] }), hostSsh: false, timeoutMs: 20_000, git: recording.git, sshKeyInMemory: true };
  });
  after(async () => {
    await server?.stop();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('[S1.4.7-29] clones with the key in a private ssh-agent: no key file while git runs, nothing left after', async () => {
    await withWorkspace(workDir, '80', async (workspace) => {
      const { clone } = await cloneRepository(target({ branch: 'develop' }), workspace, options).catch((error: Error) => {
        throw new Error(`${error.message}\nsshd said: ${server.log()}`);
      });
      expect(fs.existsSync(path.join(clone, 'only-on-develop.go'))).to.equal(true);
      const entries = recording.files().filter((f) => f.startsWith(CREDENTIAL_DIR));
      expect(entries).to.deep.equal([`${CREDENTIAL_DIR} 700 d`, `${CREDENTIAL_DIR}/agent.sock 600 s`, `${CREDENTIAL_DIR}/known_hosts 600 f`]);
      expect(fs.existsSync(path.join(workspace.root, CREDENTIAL_DIR))).to.equal(false);
      expect(recording.env()).to.match(/IdentityFile=none/);
      expect(recording.env()).not.to.contain('PRIVATE KEY');
    });
  });

  it('a key the server does not accept is "authentication refused"; a key ssh-add cannot load is "credential unusable"', async () => {
    const refused = await failure(withWorkspace(workDir, '81', (w) => cloneRepository(target({ credential: key({ privateKey: server.stranger.privateKey }) }), w, options)));
    expect(refused).to.include({ kind: 'permanent' });
    expect(refused.reason).to.include('authentication refused');
    const garbage = await failure(withWorkspace(workDir, '82', (w) => cloneRepository(target({ credential: key({ privateKey: '-----BEGIN OPENSSH PRIVATE KEY-----\nnot a key\n-----END OPENSSH PRIVATE KEY-----\n' }) }), w, options)));
    expect(garbage).to.include({ kind: 'permanent' });
    expect(garbage.reason).to.include('credential unusable');
    expect(fs.readdirSync(workDir)).to.deep.equal([]);
  });
});
