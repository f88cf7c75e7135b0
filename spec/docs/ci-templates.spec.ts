import { expect } from 'chai';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parse } from 'yaml';
import { corpusPath, requireCorpus } from '../support/corpus';
import { RunningVigil, startVigil } from '../support/vigil';

const ROOT = path.resolve(__dirname, '../..');
const GATE = path.join(ROOT, 'packages/vigil-gate/dist/vigil-gate.js');

interface Templates { github: any; gitlab: any }
const load = (): Templates => ({
  github: parse(readFileSync(path.join(ROOT, 'docs/ci/github-actions.yml'), 'utf8')),
  gitlab: parse(readFileSync(path.join(ROOT, 'docs/ci/gitlab-ci.yml'), 'utf8')),
});

/**
 * Issue #15: the CI templates' own shell steps, taken out of the YAML and run with bash against a
 * real Vigil: they send a SARIF log, a coverage report, a JUnit report and a build SBOM from the
 * corpus, then ask the gate with the single-file vigil-gate, which fails the job (exit 1).
 */
describe('docs/ci templates (GitHub Actions, GitLab CI)', function () {
  requireCorpus(this);
  this.timeout(120_000);
  let v: RunningVigil;
  let dir: string;
  let importKey: string;
  let gateKey: string;
  let repositoryId: number;

  before(async () => {
    execFileSync(process.execPath, [path.join(ROOT, 'packages/vigil-gate/scripts/build.js')]);
    v = await startVigil();
    const admin = await v.signIn();
    repositoryId = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/ci/templates' } })).body.id;
    const key = await v.key(admin, { name: 'ci import', scopes: ['sarif_import', 'report_import'] });
    importKey = key.key;
    gateKey = (await v.key(admin, { name: 'ci gate', scopes: ['scan'] })).key;
    const governor = await v.account(['platform_governor']);
    const source = await v.request('POST', '/sarif-sources', { token: governor.token, body: {
      slug: 'ci', name: 'CI', api_key_id: key.id, repository_id: repositoryId, kinds: ['sarif', 'coverage', 'test_report', 'sbom'], tools: ['Bandit'],
    } });
    expect(source.status, source.text).to.equal(201);
    dir = mkdtempSync(path.join(tmpdir(), 'vigil-ci-'));
    mkdirSync(path.join(dir, 'reports'));
    copyFileSync(corpusPath('sarif', 'bandit', 'bandit.sarif'), path.join(dir, 'reports', 'scan.sarif'));
    copyFileSync(corpusPath('coverage', 'cobertura', 'cobertura-action__istanbul.cobertura.xml'), path.join(dir, 'reports', 'cobertura.xml'));
    copyFileSync(corpusPath('junit', 'ant-junit__single-suite.xml'), path.join(dir, 'reports', 'junit.xml'));
    copyFileSync(corpusPath('sbom', 'cyclonedx-1.5', 'cdxgen-9.10.2__java.json'), path.join(dir, 'reports', 'sbom.cdx.json'));
  });
  after(async () => {
    await v?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs a step's script with bash (asynchronously: the Vigil it talks to lives in this process). */
  function bash(script: string, env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VIGIL_')));
    return new Promise((resolve, reject) => {
      const child = spawn('bash', ['-c', script], { cwd: dir, env: { ...base, ...env } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => { stdout += d; });
      child.stderr.on('data', (d) => { stderr += d; });
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
  }

  const counts = async () => {
    const token = await v.signIn();
    const out: Record<string, number> = {};
    for (const kind of ['sarif-imports', 'coverage-imports', 'test-report-imports', 'build-sbom-imports']) {
      out[kind] = (await v.request('GET', `/repositories/${repositoryId}/${kind}`, { token })).body.length;
    }
    return out;
  };

  it('[#15] parse as YAML and name the same reports, upload routes and gate call', () => {
    const { github, gitlab } = load();
    const steps = github.jobs['build-and-gate'].steps as Array<{ name?: string; run?: string }>;
    expect(steps.map((s) => s.name).filter(Boolean)).to.include.members(['Send the reports to Vigil', 'Ask the Vigil gate']);
    for (const f of ['SARIF_FILE', 'COVERAGE_FILE', 'JUNIT_FILE', 'SBOM_FILE']) expect(gitlab.variables[f]).to.equal(github.env[f]);
    expect(gitlab['vigil-gate'].allow_failure).to.deep.equal({ exit_codes: [3] });
  });

  for (const which of ['github', 'gitlab'] as const) {
    it(`[#15] ${which}: the upload step sends SARIF, coverage, JUnit and the SBOM; the gate step fails the job on a red verdict`, async () => {
      const t = load();
      const upload = which === 'github'
        ? t.github.jobs['build-and-gate'].steps.find((s: { name?: string }) => s.name === 'Send the reports to Vigil').run
        : t.gitlab['vigil-reports'].script[0];
      const gate = which === 'github'
        ? t.github.jobs['build-and-gate'].steps.find((s: { name?: string }) => s.name === 'Ask the Vigil gate').run
        : t.gitlab['vigil-gate'].script[0];
      const vars = which === 'github' ? t.github.env : t.gitlab.variables;
      const env = {
        ...Object.fromEntries(Object.entries(vars).map(([k, val]) => [k, String(val)])),
        VIGIL_URL: v.url, VIGIL_REPOSITORY_ID: String(repositoryId), VIGIL_IMPORT_KEY: importKey, VIGIL_GATE_KEY: gateKey,
        VIGIL_COMMIT: 'a1b2c3d4e5f6', VIGIL_BRANCH: 'feature/ci-templates', VIGIL_GATE: `node ${GATE}`,
      };
      const before = await counts();
      const sent = await bash(upload, env);
      expect(sent.status, `${sent.stdout}\n${sent.stderr}`).to.equal(0);
      const after = await counts();
      for (const kind of Object.keys(before)) expect(after[kind], kind).to.equal(before[kind] + 1);
      const token = await v.signIn();
      const coverage = (await v.request('GET', `/repositories/${repositoryId}/coverage-imports`, { token })).body[0];
      expect(coverage).to.include({ commit: 'a1b2c3d4e5f6', branch: 'feature/ci-templates', format: 'cobertura' });

      const asked = await bash(gate, env);
      expect(asked.status, `${asked.stdout}\n${asked.stderr}`).to.equal(1);
      expect(asked.stdout).to.contain('Result: failed (exit 1)');
      if (which === 'github') expect(asked.stdout).to.match(/^::error title=Vigil gate%3A observation::/m);
      expect(JSON.parse(readFileSync(path.join(dir, 'vigil-gate.sarif'), 'utf8')).version).to.equal('2.1.0');
      expect(readFileSync(path.join(dir, 'vigil-gate.xml'), 'utf8')).to.contain('<testsuites name="vigil-gate"');
    });
  }
});
