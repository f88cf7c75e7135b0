import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import Docker from 'dockerode';
import { SCAN_STEPS, ScanJob, ScanStep, ScanTarget } from '../../../application/ports/scanning';
import { CloneGuard } from '../../../infrastructure/scanning/clone-guard';
import { ContainerSpec, DockerRunner, PullOptions } from '../../../infrastructure/scanning/docker-runner';
import { DockerScanExecutor, DockerScanExecutorOptions, SCANNER_MEMORY_BYTES, SCANNER_TIMEOUT_MS } from '../../../infrastructure/scanning/executor';
import { ScannerOutputNormaliser } from '../../../infrastructure/scanning/normalise';
import { ScannerSettings } from '../../../infrastructure/scanning/settings';
import { corpusPath, requireCorpus } from '../../support/corpus';
import { failure, GitServer, requireDocker, standIn, startGitServer } from './support';

/**
 * The executor and the container runner against a real Docker engine (scripts/ci/docker.sh starts
 * one and builds the stand-in images: a static busybox printing a recorded real scanner output,
 * or sleeping, allocating, failing, printing garbage) and a real git daemon on loopback.
 * Time-outs and memory limits are given small here; production uses 15 minutes and 2 GB.
 */
const MB = 1024 * 1024;
const load = (file: string): unknown => JSON.parse(fs.readFileSync(corpusPath(file), 'utf8'));

type StandIn = Parameters<typeof standIn>[0];

/** Records what the executor asked the engine for, in order. */
class RecordingRunner extends DockerRunner {
  readonly specs: ContainerSpec[] = [];
  readonly pulls: Array<{ image: string; platform?: string | null }> = [];

  override run(spec: ContainerSpec) {
    this.specs.push(spec);
    return super.run(spec);
  }

  override async pull(image: string, options: PullOptions = {}) {
    this.pulls.push({ image, platform: options.platform });
  }
}


async function scannerContainers(docker: Docker): Promise<number> {
  return (await docker.listContainers({ all: true, filters: { label: ['vigil.scanner=true'] } })).length;
}

describe('Docker scan executor against a real engine (infrastructure/scanning/executor.ts, docker-runner.ts)', function () {
  this.timeout(60_000);
  requireCorpus(this);
  let docker: Docker;
  let runner: DockerRunner;

  before(async function () {
    docker = await requireDocker(this);
    runner = new DockerRunner(docker);
  });
  after(async () => {
    if (docker) expect(await scannerContainers(docker), 'scanner containers left behind').to.equal(0);
  });

  const base = (over: Partial<ContainerSpec> = {}): ContainerSpec => ({
    label: 'The test step (stand-in)', image: standIn('probe'), cmd: [], mounts: [], network: 'none',
    timeoutMs: 20_000, memoryBytes: 64 * MB, maxOutputBytes: MB, ...over,
  });

  describe('one container', () => {
    it('[S1.8.2-15] a scanner past its time-out is stopped: transient, container removed', async () => {
      const started = Date.now();
      const f = await failure(runner.run(base({ image: standIn('sleep'), timeoutMs: 1500 })));
      expect(f.kind).to.equal('transient');
      expect(f.reason).to.equal('The test step (stand-in) timed out after 1.5 s and was stopped.');
      expect(Date.now() - started).to.be.below(15_000);
      expect(await scannerContainers(docker)).to.equal(0);
    });

    it('[S1.8.2-16] a scanner past its memory ceiling is killed: transient, with the reason', async () => {
      const f = await failure(runner.run(base({ image: standIn('hog'), memoryBytes: 48 * MB })));
      expect(f.kind).to.equal('transient');
      expect(f.reason).to.equal('The test step (stand-in) was killed for using more than its 48 MB of memory (out of memory).');
    });

    it('[S1.3.1-16] an exit code the tool does not use for success is transient, with its last words', async () => {
      const f = await failure(runner.run(base({ image: standIn('fail') })));
      expect(f.kind).to.equal('transient');
      expect(f.reason).to.include('exited with code 3').and.include('fatal: could not read the configuration');
    });

    it('gitleaks exits 1 when it found leaks: with 1 declared a success code, its report is taken', async () => {
      const outcome = await runner.run(base({ image: standIn('gitleaks'), successExitCodes: [0, 1] }));
      expect(outcome.exitCode).to.equal(1);
      expect(JSON.parse(outcome.stdout.toString())).to.deep.equal(load('scanners/gitleaks/gitleaks-8__many.json'));
      await failure(runner.run(base({ image: standIn('gitleaks') })));
    });

    it('output beyond its bound stops the container: transient', async () => {
      const f = await failure(runner.run(base({ image: standIn('flood'), maxOutputBytes: MB })));
      expect(f).to.include({ kind: 'transient', reason: 'The test step (stand-in) wrote more than 1 MB of output and was stopped.' });
    });

    it('captures a large output whole (an SBOM is big), stderr apart', async () => {
      const outcome = await runner.run(base({ image: standIn('flood'), maxOutputBytes: 16 * MB }));
      expect(outcome.stdout.length).to.equal(8_000_000);
      expect(outcome.stderrTail).to.equal('');
    });

    it('no network, the source read-only, the arguments given', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-src-'));
      fs.writeFileSync(path.join(dir, 'a.py'), 'x = 1\n');
      try {
        const outcome = await runner.run(base({ cmd: ['dir', '/src', '--flag'], mounts: [{ source: dir, target: '/src', readOnly: true }] }));
        expect(JSON.parse(outcome.stdout.toString())).to.include({ srcReadOnly: true, srcFiles: 1, interfaces: 'lo', args: 'dir /src --flag' });
        const networked = await runner.run(base({ network: 'bridge' }));
        expect(JSON.parse(networked.stdout.toString()).interfaces).to.include('eth0');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it('[S1.3.1-16] an engine that does not answer is a transient failure ("daemon silent")', async () => {
      const silent = new DockerRunner(new Docker({ socketPath: '/nonexistent/docker.sock' }));
      const f = await failure(silent.run(base()));
      expect(f).to.include({ kind: 'transient' });
      expect(f.reason).to.include('The Docker engine does not answer');
    });

    it('stops the container when the scan is interrupted', async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 500);
      const f = await failure(runner.run(base({ image: standIn('sleep'), signal: controller.signal })));
      expect(f.reason).to.include('interrupted');
    });
  });

  describe('a scan', () => {
    let server: GitServer;
    let workDir: string;
    let dbDir: string;
    const images = (over: Partial<Record<ScanStep, StandIn>> = {}) => {
      const chosen: Record<ScanStep, StandIn> = { sbom: 'syft', vulnerabilities: 'grype', secrets: 'gitleaks', iac: 'checkov', sast: 'semgrep', ...over };
      return Object.fromEntries(SCAN_STEPS.map((s) => [s, standIn(chosen[s])])) as Record<ScanStep, string>;
    };
    const settings = (over: Partial<Record<ScanStep, StandIn>> = {}): ScannerSettings => ({
      workDir, gitAllowedHosts: [], hostSsh: true, images: images(over), imageScanPlatform: null, vulnerabilityDbDir: dbDir,
    });
    const executor = (over: Partial<Record<ScanStep, StandIn>> = {}, options: Partial<DockerScanExecutorOptions> = {}) =>
      new DockerScanExecutor({ settings: settings(over), runner: new RecordingRunner(docker), timeoutMs: 20_000, memoryBytes: 64 * MB, cpus: 1, ...options });
    const job = (target: Partial<ScanTarget> = {}, scanId = 1): ScanJob => ({
      scanId, attempt: 1, target: { kind: 'repository', id: 3, url: server.url('app.git'), branch: 'main', subPath: '', ...target },
    });
    const never = new AbortController().signal;

    before(async () => {
      server = await startGitServer();
      workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-work-'));
      dbDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-vulndb-'));
    });
    after(async () => {
      await server?.stop();
      fs.rmSync(workDir, { recursive: true, force: true });
      fs.rmSync(dbDir, { recursive: true, force: true });
    });
    afterEach(() => expect(fs.readdirSync(workDir), 'workspaces left behind').to.deep.equal([]));

    it('[S1.1-04] [S1.2.2-06] runs the five scanners in order and hands back their native outputs, languages and duration', async () => {
      const exec = executor();
      let beats = 0;
      const result = await exec.run(job(), async () => { beats++; }, never);
      const recorded = (exec as unknown as { runner: RecordingRunner }).runner.specs;
      expect(recorded.map((s) => s.label)).to.deep.equal([
        'The sbom step (syft)', 'The vulnerabilities step (grype)', 'The secrets step (gitleaks)', 'The iac step (checkov)', 'The sast step (semgrep)',
      ]);
      expect(recorded.map((s) => s.network)).to.deep.equal(['none', 'bridge', 'none', 'none', 'bridge']);
      expect(recorded.every((s) => s.timeoutMs === 20_000 && s.memoryBytes === 64 * MB)).to.equal(true);
      expect(Object.keys(result.artifacts)).to.deep.equal([...SCAN_STEPS]);
      expect(result.artifacts.sbom).to.deep.include({ tool: 'syft', output: load('scanners/syft/syft__cyclonedx-1.4-dir.golden.json') });
      // The recorded output says "[not provided]": the version falls back to the image tag.
      expect(result.artifacts.vulnerabilities).to.deep.include({ tool: 'grype', toolVersion: 'test', output: load('scanners/grype/grype__json-image.golden.json') });
      expect(result.artifacts.secrets).to.deep.include({ tool: 'gitleaks', output: load('scanners/gitleaks/gitleaks-8__many.json') });
      expect(result.artifacts.iac).to.deep.include({ tool: 'checkov', toolVersion: '1.0.467' });
      expect(result.artifacts.sast).to.deep.include({ tool: 'semgrep' });
      expect(result.languages).to.deep.equal(['dockerfile', 'json', 'python', 'terraform', 'typescript']);
      expect(result.languagesBounded).to.equal(false);
      expect(result.duration).to.match(/^PT\d+(\.\d+)?S$/);
      expect(beats).to.be.at.least(6);
    });

    it('[S1.1-06] [S1.1-07] its artifacts go through the normaliser into findings', async () => {
      const result = await executor().run(job(), async () => undefined, never);
      const normaliser = new ScannerOutputNormaliser();
      const counts = Object.fromEntries(SCAN_STEPS.map((s) => [s, normaliser.findings(s, result.artifacts[s]!, job().target).length]));
      expect(counts).to.deep.equal({ sbom: 0, vulnerabilities: 2, secrets: 3, iac: 3, sast: 3 });
    });

    it('[S1.2.2-05] the scanners see the clone (or its sub-path) read-only at /src; the matcher sees the SBOM and has network', async () => {
      const result = await executor({ sbom: 'probe', vulnerabilities: 'probe', secrets: 'probe', iac: 'probe', sast: 'probe' })
        .run(job({ subPath: 'services/api' }), async () => undefined, never);
      const seen = (step: ScanStep) => result.artifacts[step]!.output as Record<string, unknown>;
      expect(seen('sbom')).to.include({ srcReadOnly: true, srcFiles: 2, interfaces: 'lo', args: 'scan dir:/src -o cyclonedx-json -q' });
      expect(seen('vulnerabilities')).to.include({ sbomMounted: true, args: 'sbom:/sbom/sbom.json -o json -q' });
      expect(seen('vulnerabilities').interfaces).to.include('eth0');
      expect(seen('secrets')).to.include({ srcReadOnly: true, srcFiles: 2, interfaces: 'lo' });
      expect(seen('secrets').args).to.match(/^dir \/src --report-format json --report-path \/dev\/stdout --redact/);
      expect(seen('iac')).to.include({ srcReadOnly: true, interfaces: 'lo' });
      expect(result.languages).to.deep.equal(['json', 'typescript']);
    });

    it('[S1.2.1-18] a language count stopped at its bound says so', async () => {
      const result = await executor({}, { languageFileBound: 3 }).run(job(), async () => undefined, never);
      expect(result.languagesBounded).to.equal(true);
    });

    it('[S1.8.2-15] [S1.2.2-06] a step past its time-out fails the scan (transient); heartbeats continue while it runs', async () => {
      let beats = 0;
      const f = await failure(executor({ sast: 'sleep' }, { timeoutMs: 2500, heartbeatIntervalMs: 250 }).run(job(), async () => { beats++; }, never));
      expect(f).to.include({ kind: 'transient', reason: 'The sast step (semgrep) timed out after 2.5 s and was stopped.' });
      expect(beats).to.be.at.least(10);
    });

    it('[S1.8.2-16] a step killed for memory fails the scan (transient, with the reason)', async () => {
      const f = await failure(executor({ iac: 'hog' }, { memoryBytes: 48 * MB }).run(job(), async () => undefined, never));
      expect(f).to.include({ kind: 'transient', reason: 'The iac step (checkov) was killed for using more than its 48 MB of memory (out of memory).' });
    });

    it('[S1.3.1-16] garbage output or an error exit fails the scan (transient)', async () => {
      const garbage = await failure(executor({ sast: 'garbage' }).run(job(), async () => undefined, never));
      expect(garbage.kind).to.equal('transient');
      expect(garbage.reason).to.match(/^The sast step \(semgrep\) wrote output that is not JSON/);
      const failed = await failure(executor({ sbom: 'fail' }).run(job(), async () => undefined, never));
      expect(failed.reason).to.match(/^The sbom step \(syft\) exited with code 3\./);
    });

    it('[S1.3.1-13] a clone failure fails the scan before any container runs', async () => {
      const exec = executor();
      const f = await failure(exec.run(job({ branch: 'gone' }), async () => undefined, never));
      expect(f.kind).to.equal('permanent');
      expect((exec as unknown as { runner: RecordingRunner }).runner.specs).to.have.length(0);
      const refused = await failure(executor({}, { guard: new CloneGuard({ allowedHosts: ['git.example.com'] }) }).run(job(), async () => undefined, never));
      expect(refused.kind).to.equal('permanent');
    });

    it('[S1.2.1-22] [S1.8.3-38] an image target: pulled for the configured platform, exported, SBOM and matcher only, no language', async () => {
      const exec = new DockerScanExecutor({
        settings: { ...settings({ sbom: 'probe', vulnerabilities: 'probe' }), imageScanPlatform: 'linux/amd64' },
        runner: new RecordingRunner(docker), timeoutMs: 20_000, memoryBytes: 64 * MB,
      });
      const result = await exec.run({ scanId: 9, attempt: 1, target: { kind: 'container', id: 4, image: standIn('garbage') } }, async () => undefined, never);
      const recording = (exec as unknown as { runner: RecordingRunner }).runner;
      expect(recording.pulls).to.deep.equal([{ image: standIn('garbage'), platform: 'linux/amd64' }]);
      expect(recording.specs.map((s) => s.label)).to.deep.equal(['The sbom step (syft)', 'The vulnerabilities step (grype)']);
      expect(result.artifacts.sbom!.output).to.include({ imageArchive: true, args: 'scan docker-archive:/image/image.tar -o cyclonedx-json -q', interfaces: 'lo' });
      expect(result.artifacts.vulnerabilities!.output).to.include({ sbomMounted: true });
      expect(result.artifacts).to.include({ secrets: null, iac: null, sast: null });
      expect(result).to.include({ languages: null, languagesBounded: false });
    });

    it('[S1.3.1-16] an image target whose registry cannot be reached is a transient failure; the workspace goes anyway', async () => {
      const exec = new DockerScanExecutor({ settings: settings(), runner: new DockerRunner(docker), timeoutMs: 20_000, memoryBytes: 64 * MB });
      const f = await failure(exec.run({ scanId: 10, attempt: 1, target: { kind: 'container', id: 5, image: 'registry.invalid/nobody/nothing:1' } }, async () => undefined, never));
      expect(f.kind).to.equal('transient');
      expect(f.reason).to.match(/registry\.invalid\/nobody\/nothing:1/);
    });

    it('the production limits are the specification\'s', () => {
      expect(SCANNER_TIMEOUT_MS).to.equal(15 * 60_000);
      expect(SCANNER_MEMORY_BYTES).to.equal(2 * 1024 ** 3);
    });
  });
});
