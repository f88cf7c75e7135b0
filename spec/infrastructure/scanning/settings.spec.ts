import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import { loadConfig } from '../../../infrastructure/config/config';
import { SettingError } from '../../../infrastructure/config/units';
import { SCANNERS } from '../../../infrastructure/scanning/scanners';

const DIGEST = `sha256:${'ab'.repeat(32)}`;

describe('Scanning settings (infrastructure/scanning/settings.ts through loadConfig)', () => {
  it('[S1.8.3-35] VIGIL_WORK_DIR defaults to <VIGIL_DATA_DIR>/work for a plain start, and takes an absolute path', () => {
    expect(loadConfig({ VIGIL_DATA_DIR: '/tmp/vigil-x' }).scanners.workDir).to.equal('/tmp/vigil-x/work');
    expect(loadConfig({ VIGIL_WORK_DIR: '/var/lib/vigil/work' }).scanners.workDir).to.equal('/var/lib/vigil/work');
    expect(loadConfig({ VIGIL_WORK_DIR: 'rel/work' }).scanners.workDir).to.equal(path.resolve('rel/work'));
  });

  it('[S1.8.3-31] [S1.8.3-32] VIGIL_GIT_ALLOWED_HOSTS: empty by default, a list with wildcards, malformed stops the start', () => {
    expect(loadConfig({}).scanners.gitAllowedHosts).to.deep.equal([]);
    expect(loadConfig({ VIGIL_GIT_ALLOWED_HOSTS: 'git.example.com,*.corp.example' }).scanners.gitAllowedHosts).to.deep.equal(['git.example.com', '*.corp.example']);
    expect(() => loadConfig({ VIGIL_GIT_ALLOWED_HOSTS: 'https://git.example.com' })).to.throw(SettingError, /VIGIL_GIT_ALLOWED_HOSTS/);
  });

  it('[S1.8.3-34] VIGIL_HOST_SSH defaults to true', () => {
    expect(loadConfig({}).scanners.hostSsh).to.equal(true);
    expect(loadConfig({ VIGIL_HOST_SSH: 'false' }).scanners.hostSsh).to.equal(false);
    expect(() => loadConfig({ VIGIL_HOST_SSH: 'maybe' })).to.throw(SettingError, /VIGIL_HOST_SSH/);
  });

  it('[S1.8.3-37] five image settings, one per scanner, each default pinned by digest', () => {
    const images = loadConfig({}).scanners.images;
    expect(Object.keys(images)).to.deep.equal(['sbom', 'vulnerabilities', 'secrets', 'iac', 'sast']);
    for (const image of Object.values(images)) expect(image).to.match(/@sha256:[0-9a-f]{64}$/);
    expect(images.sbom).to.equal(SCANNERS.sbom.defaultImage);
  });

  it('[S1.8.3-37] an override must name a digest; the start stops otherwise', () => {
    const ok = loadConfig({ VIGIL_IMAGE_SAST: `registry.local:5000/semgrep:1.2@${DIGEST}`, VIGIL_IMAGE_SBOM: `syft@${DIGEST}` }).scanners.images;
    expect(ok.sast).to.equal(`registry.local:5000/semgrep:1.2@${DIGEST}`);
    expect(ok.sbom).to.equal(`syft@${DIGEST}`);
    for (const [name, value] of [
      ['VIGIL_IMAGE_SBOM', 'anchore/syft:latest'], ['VIGIL_IMAGE_VULNERABILITIES', 'anchore/grype'], ['VIGIL_IMAGE_SECRETS', 'gitleaks@sha256:short'],
      ['VIGIL_IMAGE_IAC', `Checkov@${DIGEST}`], ['VIGIL_IMAGE_SAST', `semgrep@sha512:${'a'.repeat(128)}`],
    ]) {
      expect(() => loadConfig({ [name]: value }), `${name}=${value}`).to.throw(SettingError, new RegExp(name));
    }
  });

  it('[S1.8.3-38] VIGIL_IMAGE_SCAN_PLATFORM: none by default, os/arch[/variant] otherwise', () => {
    expect(loadConfig({}).scanners.imageScanPlatform).to.equal(null);
    expect(loadConfig({ VIGIL_IMAGE_SCAN_PLATFORM: 'linux/arm64/v8' }).scanners.imageScanPlatform).to.equal('linux/arm64/v8');
    expect(() => loadConfig({ VIGIL_IMAGE_SCAN_PLATFORM: 'amd64' })).to.throw(SettingError, /VIGIL_IMAGE_SCAN_PLATFORM/);
  });

  it('[S1.8.3-44] VIGIL_VULNERABILITY_DB_DIR defaults to the temporary directory', () => {
    expect(loadConfig({}).scanners.vulnerabilityDbDir).to.equal(path.join(os.tmpdir(), 'vigil-vulnerability-db'));
    expect(loadConfig({ VIGIL_VULNERABILITY_DB_DIR: '/srv/grype' }).scanners.vulnerabilityDbDir).to.equal('/srv/grype');
  });
});
