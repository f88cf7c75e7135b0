import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import Docker from 'dockerode';
import { ScanFailure } from '../../../application/ports/scanning';
import { DockerRunner } from '../../../infrastructure/scanning/docker-runner';
import { DockerScanExecutor, isoDuration, parseStepOutput } from '../../../infrastructure/scanning/executor';
import { IMAGE_SETTINGS, SCANNERS, tagOf } from '../../../infrastructure/scanning/scanners';
import { loadScannerSettings } from '../../../infrastructure/scanning/settings';

/** The executor's parts that need no Docker engine (docker.spec.ts runs it against one). */
describe('Docker scan executor without an engine (infrastructure/scanning/executor.ts)', () => {
  const noEngine = new DockerRunner(new Docker({ socketPath: '/nonexistent/docker.sock' }));
  const never = new AbortController().signal;

  it('[S1.2.2-07] an unusable work directory fails the scan with a transient reason, never a bare error', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-')), 'a-file');
    fs.writeFileSync(file, '');
    const executor = new DockerScanExecutor({ settings: { ...loadScannerSettings({}, '/tmp'), workDir: path.join(file, 'work') }, runner: noEngine });
    try {
      await executor.run({ scanId: 1, attempt: 1, target: { kind: 'repository', id: 1, url: 'git://127.0.0.1:1/x.git', branch: 'main' } }, async () => undefined, never);
      expect.fail('should fail');
    } catch (error) {
      expect(error).to.be.instanceOf(ScanFailure);
      expect(error).to.include({ kind: 'transient' });
      expect((error as ScanFailure).reason).to.match(/^The scan failed unexpectedly: /);
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  });

  it('[S1.2.2-07] an image target without an image is a permanent failure', async () => {
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vigil-work-'));
    try {
      const executor = new DockerScanExecutor({ settings: { ...loadScannerSettings({}, '/tmp'), workDir }, runner: noEngine });
      const error = await executor.run({ scanId: 2, attempt: 1, target: { kind: 'container', id: 1 } }, async () => undefined, never).catch((e) => e);
      expect(error).to.be.instanceOf(ScanFailure).and.include({ kind: 'permanent', reason: 'The target names no image.' });
      expect(fs.readdirSync(workDir)).to.deep.equal([]);
    } finally {
      fs.rmSync(workDir, { recursive: true, force: true });
    }
  });

  it('a step\'s output must be one JSON document (a byte-order mark is tolerated)', () => {
    expect(parseStepOutput('sbom', 'syft', Buffer.from('\uFEFF {"bomFormat":"CycloneDX"}\n'))).to.deep.equal({ bomFormat: 'CycloneDX' });
    expect(parseStepOutput('secrets', 'gitleaks', Buffer.from('null'))).to.equal(null);
    for (const text of ['', '  \n', '{"a":1}{"b":2}', '<html>', '{"a":']) {
      expect(() => parseStepOutput('sast', 'semgrep', Buffer.from(text)), text).to.throw(ScanFailure).with.property('kind', 'transient');
    }
  });

  it('writes durations in ISO 8601 and reads versions from image tags', () => {
    expect(isoDuration(42_500)).to.equal('PT42.5S');
    expect(isoDuration(1234)).to.equal('PT1.234S');
    expect(isoDuration(0)).to.equal('PT0S');
    expect(tagOf(SCANNERS.sbom.defaultImage)).to.equal('1.51.1');
    expect(tagOf('registry.local:5000/semgrep@sha256:abc')).to.equal(null);
  });

  it('[S1.1-04] [S1.8.3-37] five scanners, one image setting each, gitleaks\' exit 1 counted as success', () => {
    expect(Object.keys(SCANNERS)).to.deep.equal(['sbom', 'vulnerabilities', 'secrets', 'iac', 'sast']);
    expect(Object.values(IMAGE_SETTINGS)).to.deep.equal(['VIGIL_IMAGE_SBOM', 'VIGIL_IMAGE_VULNERABILITIES', 'VIGIL_IMAGE_SECRETS', 'VIGIL_IMAGE_IAC', 'VIGIL_IMAGE_SAST']);
    expect(SCANNERS.secrets.successExitCodes).to.deep.equal([0, 1]);
    expect(SCANNERS.secrets.command({ kind: 'directory' })).to.include('--redact');
    expect(Object.values(SCANNERS).filter((s) => s.network !== 'none').map((s) => s.step)).to.deep.equal(['vulnerabilities', 'sast']);
  });
});
