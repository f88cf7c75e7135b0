import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import { ScanTarget } from '../../../application/ports/scanning';
import { CloneGuard } from '../../../infrastructure/scanning/clone-guard';
import { classifyCloneFailure, cloneRepository, GitCloneOptions, resolveSubPath, withWorkspace } from '../../../infrastructure/scanning/git';
import { detectLanguages, languageOfFile } from '../../../infrastructure/scanning/languages';
import { failure, freePort, GitServer, startGitServer, startSilentServer } from './support';


describe('Clone into a workspace with the real git binary (infrastructure/scanning/git.ts)', function () {
  this.timeout(30_000);
  let server: GitServer;
  let workDir: string;
  const options: GitCloneOptions = { guard: new CloneGuard({ allowedHosts: [] }), hostSsh: true, timeoutMs: 15_000 };
  const target = (over: Partial<ScanTarget> = {}): ScanTarget => ({ kind: 'repository', id: 1, url: server.url('app.git'), branch: 'main', subPath: '', ...over });
  const leftovers = () => fs.readdirSync(workDir);

  before(async () => {
    server = await startGitServer();
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-work-'));
  });
  after(async () => {
    await server?.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  });
  afterEach(() => expect(leftovers(), 'workspaces left behind').to.deep.equal([]));

  it('[S1.1-03] [S1.2.2-05] clones the configured branch, one commit deep, into a workspace under the work directory', async () => {
    let seen = '';
    await withWorkspace(workDir, '41', async (workspace) => {
      seen = workspace.root;
      expect(path.dirname(workspace.root)).to.equal(workDir);
      expect(path.basename(workspace.root)).to.match(/^scan-41-/);
      expect(fs.statSync(workspace.root).mode & 0o777).to.equal(0o700);
      const { clone, source } = await cloneRepository(target({ branch: 'develop' }), workspace, options);
      expect(source).to.equal(clone);
      expect(fs.existsSync(path.join(clone, 'only-on-develop.go'))).to.equal(true);
      expect(execFileSync('git', ['rev-list', '--count', 'HEAD'], { cwd: clone, encoding: 'utf8' }).trim()).to.equal('1');
      const main = await withWorkspace(workDir, '42', (w) => cloneRepository(target(), w, options));
      expect(fs.existsSync(main.clone), 'the second workspace is gone').to.equal(false);
    });
    expect(fs.existsSync(seen)).to.equal(false);
  });

  it('[S1.2.2-05] removes the workspace when the scan fails too', async () => {
    let seen = '';
    const outcome = withWorkspace(workDir, '43', async (workspace) => {
      seen = workspace.root;
      await cloneRepository(target(), workspace, options);
      throw new Error('a scanner failed');
    });
    await outcome.then(() => expect.fail('should fail'), (error: Error) => expect(error.message).to.equal('a scanner failed'));
    expect(seen).to.not.equal('');
    expect(fs.existsSync(seen)).to.equal(false);
  });

  it('[S1.3.1-13] a branch that does not exist is a permanent failure naming it', async () => {
    const f = await failure(withWorkspace(workDir, '44', (w) => cloneRepository(target({ branch: 'release/9' }), w, options)));
    expect(f.kind).to.equal('permanent');
    expect(f.reason).to.include('the branch "release/9" does not exist');
  });

  it('[S1.3.1-13] a repository that does not exist is a permanent failure', async () => {
    const f = await failure(withWorkspace(workDir, '45', (w) => cloneRepository(target({ url: server.url('nope.git') }), w, options)));
    expect(f.kind).to.equal('permanent');
    expect(f.reason).to.include('the repository does not exist');
  });

  it('[S1.3.1-13] a sub-path: scanned when present, permanent failure when absent, a file, a link out of the clone or climbing', async () => {
    await withWorkspace(workDir, '46', async (w) => {
      const { clone, source } = await cloneRepository(target({ subPath: 'services/api/' }), w, options);
      expect(source).to.equal(path.join(fs.realpathSync(clone), 'services', 'api'));
      for (const [subPath, message] of [
        ['services/web', 'does not exist on the cloned branch'], ['README.md', 'is not a directory'], ['escape', 'leads outside the repository'],
      ]) {
        const f = await failure(resolveSubPath(clone, subPath));
        expect(f.kind, subPath).to.equal('permanent');
        expect(f.reason, subPath).to.include(message);
      }
    });
    for (const subPath of ['../other', '/etc', 'a/../../b']) {
      const f = await failure(withWorkspace(workDir, '47', (w) => cloneRepository(target({ subPath }), w, options)));
      expect(f.kind, subPath).to.equal('permanent');
    }
    const absent = await failure(withWorkspace(workDir, '48', (w) => cloneRepository(target({ subPath: 'nowhere' }), w, options)));
    expect(absent).to.include({ kind: 'permanent' });
  });

  it('[S1.3.1-14] [S1.8.3-32] the clone guard refuses the metadata address and link-local hosts before git runs', async () => {
    for (const url of ['git://169.254.169.254/app.git', 'http://169.254.169.254/latest/meta-data/', 'git://169.254.3.4:9418/app.git', 'https://[fe80::1]/x.git']) {
      const started = Date.now();
      const f = await failure(withWorkspace(workDir, '49', (w) => cloneRepository(target({ url }), w, options)));
      expect(f.kind, url).to.equal('permanent');
      expect(f.reason, url).to.match(/clone guard refuses .*(metadata|link-local)/);
      expect(Date.now() - started, 'no connection attempted').to.be.below(2000);
    }
  });

  it('[S1.3.1-14] [S1.8.3-31] the clone guard refuses a host not in VIGIL_GIT_ALLOWED_HOSTS', async () => {
    const listed = { ...options, guard: new CloneGuard({ allowedHosts: ['git.example.com', '*.corp.example'] }) };
    const f = await failure(withWorkspace(workDir, '50', (w) => cloneRepository(target(), w, listed)));
    expect(f.kind).to.equal('permanent');
    expect(f.reason).to.include('not in VIGIL_GIT_ALLOWED_HOSTS');
    const allowed = { ...options, guard: new CloneGuard({ allowedHosts: ['127.0.0.1'] }) };
    await withWorkspace(workDir, '51', (w) => cloneRepository(target(), w, allowed));
  });

  it('[S1.3.1-14] file://, local paths and ext:: are refused (the guard allows network URLs only)', async () => {
    for (const url of [`file://${server.base}/app.git`, path.join(server.base, 'app.git'), 'ext::sh -c touch% /tmp/pwned']) {
      const f = await failure(withWorkspace(workDir, '52', (w) => cloneRepository(target({ url }), w, options)));
      expect(f.kind, url).to.equal('permanent');
    }
    expect(fs.existsSync('/tmp/pwned')).to.equal(false);
  });

  it('[S1.8.3-34] with VIGIL_HOST_SSH false an ssh URL is refused permanently', async () => {
    const f = await failure(withWorkspace(workDir, '53', (w) => cloneRepository(target({ url: 'git@127.0.0.1:app.git' }), w, { ...options, hostSsh: false })));
    expect(f.kind).to.equal('permanent');
    expect(f.reason).to.include('VIGIL_HOST_SSH is false');
  });

  it('[S1.3.1-16] nobody listening is a transient network failure; a token in the URL is never shown', async () => {
    const port = await freePort();
    const f = await failure(withWorkspace(workDir, '54', (w) => cloneRepository(target({ url: `http://user:s3cr3t-token@127.0.0.1:${port}/app.git` }), w, options)));
    expect(f.kind).to.equal('transient');
    expect(f.reason).to.include('network failure');
    expect(f.reason).to.not.include('s3cr3t-token');
  });

  it('[S1.3.1-16] a server that never answers hits the clone time-out: transient', async () => {
    const silent = await startSilentServer();
    try {
      const f = await failure(withWorkspace(workDir, '55', (w) => cloneRepository(target({ url: `git://127.0.0.1:${silent.port}/app.git` }), w, { ...options, timeoutMs: 1000 })));
      expect(f.kind).to.equal('transient');
      expect(f.reason).to.include('timed out after 1 s');
    } finally {
      await silent.stop();
    }
  });

  it('[S1.3.1-11] [S1.3.1-12] [S1.3.1-14] [S1.3.1-16] classifies what git says: auth, host keys and unloadable keys permanent, 5xx, 429 and the unknown transient', () => {
    const url = 'https://u:tok@git.example.com/o/r.git';
    const cases: Array<[string, 'permanent' | 'transient', RegExp]> = [
      ["fatal: could not read Username for 'https://git.example.com': terminal prompts disabled", 'permanent', /authentication refused/],
      ["remote: Invalid username or password.\nfatal: Authentication failed for 'https://git.example.com/o/r.git/'", 'permanent', /authentication refused/],
      ["fatal: unable to access 'https://git.example.com/o/r.git/': The requested URL returned error: 403", 'permanent', /authentication refused/],
      ['git@git.example.com: Permission denied (publickey).\nfatal: Could not read from remote repository.', 'permanent', /authentication refused/],
      ['No ED25519 host key is known for git.example.com and you have requested strict checking.\nHost key verification failed.', 'permanent', /host key changed or unpinned/],
      ['@@@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @@@', 'permanent', /host key changed or unpinned/],
      ['Load key "/home/vigil/.ssh/id_ed25519": invalid format\ngit@git.example.com: Permission denied (publickey).', 'permanent', /credential unusable/],
      ['Load key "/home/vigil/.ssh/id_rsa": error in libcrypto\ngit@git.example.com: Permission denied (publickey).', 'permanent', /credential unusable/],
      ["remote: Repository not found.\nfatal: repository 'https://git.example.com/o/r.git/' not found", 'permanent', /repository does not exist/],
      ["fatal: unable to access 'https://git.example.com/o/r.git/': The requested URL returned error: 503", 'transient', /network failure/],
      ["fatal: unable to access 'https://git.example.com/o/r.git/': The requested URL returned error: 429", 'transient', /network failure/],
      ["fatal: unable to access 'https://git.example.com/': Could not resolve host: git.example.com", 'transient', /network failure/],
      ['fatal: the moon is in the wrong phase', 'transient', /unclassified/],
    ];
    for (const [stderr, kind, reason] of cases) {
      const f = classifyCloneFailure(stderr, url, 'main');
      expect(f.kind, stderr).to.equal(kind);
      expect(f.reason, stderr).to.match(reason);
      expect(f.reason).to.not.include('tok@');
      expect(f.reason).to.not.include('=>');
    }
  });

  it('refuses a branch name git would read as an option or a revision expression', async () => {
    for (const branch of ['--upload-pack=touch /tmp/x', 'a..b', 'main@{1}', '']) {
      const f = await failure(withWorkspace(workDir, '56', (w) => cloneRepository(target({ branch }), w, options)));
      expect(f.kind, branch).to.equal('permanent');
    }
  });

  describe('languages of the clone', () => {
    it('[S1.2.1-21] counts files by name and extension into the §2.1 vocabulary only, sorted', async () => {
      await withWorkspace(workDir, '57', async (w) => {
        const { clone } = await cloneRepository(target({ branch: 'develop' }), w, options);
        expect(await detectLanguages(clone)).to.deep.equal({ languages: ['dockerfile', 'go', 'json', 'python', 'terraform', 'typescript'], bounded: false });
      });
      expect(['Dockerfile', 'Dockerfile.prod', 'x.D.TS', 'a.yml', 'b.cls', 'c.ex', 'readme.md'].map(languageOfFile))
        .to.deep.equal(['dockerfile', 'dockerfile', 'typescript', 'yaml', 'apex', 'elixir', undefined]);
    });

    it('[S1.2.1-18] stops at its bound and says so', async () => {
      await withWorkspace(workDir, '58', async (w) => {
        const { clone } = await cloneRepository(target(), w, options);
        const bounded = await detectLanguages(clone, 2);
        expect(bounded.bounded).to.equal(true);
        expect(bounded.languages.length).to.be.at.most(2);
        expect((await detectLanguages(clone, 7)).bounded).to.equal(false);
      });
    });
  });
});
