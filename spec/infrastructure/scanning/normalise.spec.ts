import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect } from 'chai';
import { ScanFailure, ScanStep, ScanTarget, StepArtifact, StepFinding } from '../../../application/ports/scanning';
import { DEFAULT_DISALLOWED_LICENCES, LicencePolicy } from '../../../infrastructure/scanning/licences';
import { MAX_TITLE_LENGTH, reportedToolVersion, ScannerOutputNormaliser } from '../../../infrastructure/scanning/normalise';
import { scannerPath } from '../../../infrastructure/scanning/scanner-paths';
import { corpusFiles, corpusPath, requireCorpus } from '../../support/corpus';

/**
 * Every recorded scanner output of the corpus (../shared/fixtures/scanners) goes through the
 * normaliser; the expected counts are computed here by plain walks of the JSON, independently of
 * the normaliser's code: one issue per identity (rule or vulnerability id, path or package).
 */
type Json = Record<string, any>;
const repo: ScanTarget = { kind: 'repository', id: 7, url: 'https://git.example.com/a/b.git', branch: 'main', subPath: '' };
const normaliser = new ScannerOutputNormaliser();

const load = (file: string): unknown => JSON.parse(fs.readFileSync(file, 'utf8'));
const artifact = (tool: string, output: unknown): StepArtifact => ({ tool, toolVersion: null, output });
const unique = (pairs: Array<[string, string]>) => new Set(pairs.map(([a, b]) => `${a}|${b}`)).size;
const bare = (p: string) => p.replace(/\\/g, '/').replace(/^\/+/, '');
const identities = (findings: StepFinding[]) => new Set(findings.map((f) => `${f.ruleId}|${f.path}`));

function transient(fn: () => unknown): ScanFailure {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(ScanFailure);
    expect((error as ScanFailure).kind).to.equal('transient');
    return error as ScanFailure;
  }
  throw new Error('expected a transient ScanFailure');
}

/** SARIF: results that are findings (not pass/notApplicable, not suppressed), by (ruleId, uri). */
function sarifIdentities(log: Json): number {
  const pairs: Array<[string, string]> = [];
  for (const run of log.runs) {
    for (const r of run.results) {
      if (r.kind === 'pass' || r.kind === 'notApplicable' || (r.suppressions ?? []).length) continue;
      const uri = r.locations?.[0]?.physicalLocation?.artifactLocation?.uri ?? '';
      pairs.push([r.ruleId, bare(uri)]);
    }
  }
  return unique(pairs);
}

/** Expected identities per step for a corpus file, by directory. */
function expected(dir: string, file: string): Partial<Record<ScanStep, number>> {
  const doc = load(file) as any;
  if (file.endsWith('.sarif')) {
    return { [dir === 'semgrep' ? 'sast' : 'vulnerabilities']: sarifIdentities(doc) };
  }
  switch (dir) {
    case 'syft':
      return { sbom: 0 };
    case 'grype':
      return { vulnerabilities: unique(doc.matches.map((m: Json) => [m.vulnerability.id, m.artifact.purl || `${m.artifact.name}@${m.artifact.version}`])) };
    case 'gitleaks':
      return { secrets: unique((doc ?? []).map((l: Json) => [l.RuleID, bare(l.File)])) };
    case 'checkov': {
      const reports: Json[] = Array.isArray(doc) ? doc : [doc];
      return { iac: unique(reports.flatMap((r) => r.results.failed_checks.map((c: Json) => [c.check_id, bare(c.file_path)]))) };
    }
    case 'kics':
      return { iac: unique(doc.queries.flatMap((q: Json) => q.files.map((f: Json) => [q.query_id, bare(f.file_name)]))) };
    case 'semgrep':
      return { sast: unique(doc.results.filter((r: Json) => !r.extra?.is_ignored).map((r: Json) => [r.check_id, bare(r.path)])) };
    case 'trivy': {
      const results: Json[] = doc.Results ?? [];
      return {
        vulnerabilities: unique(results.flatMap((r) => (r.Vulnerabilities ?? []).map((v: Json) => [v.VulnerabilityID, v.PkgIdentifier?.PURL ?? `${v.PkgName}@${v.InstalledVersion}`]))),
        secrets: unique(results.flatMap((r) => (r.Secrets ?? []).map((s: Json) => [s.RuleID, bare(r.Target)]))),
        iac: unique(results.flatMap((r) => (r.Misconfigurations ?? []).filter((m: Json) => m.Status === 'FAIL').map((m: Json) => [m.AVDID ?? m.ID, bare(r.Target)]))),
      };
    }
    default:
      throw new Error(`no expectation for scanners/${dir}: add one when the corpus grows`);
  }
}

describe('Scanner output normaliser (infrastructure/scanning/normalise.ts)', function () {
  describe('the recorded outputs of the corpus', function () {
    requireCorpus(this);
    const dirs = fs.existsSync(corpusPath('scanners')) ? fs.readdirSync(corpusPath('scanners')).sort() : [];

    it('[S1.1-06] covers every scanner directory of the corpus', () => {
      expect(dirs).to.deep.equal(['checkov', 'gitleaks', 'grype', 'kics', 'semgrep', 'syft', 'trivy']);
    });

    for (const dir of dirs) {
      for (const file of corpusFiles('scanners', dir)) {
        const name = `${dir}/${path.basename(file)}`;
        it(`[S1.1-06] ${name}: one finding per identity, counted independently`, () => {
          const steps = expected(dir, file);
          expect(Object.keys(steps)).to.not.be.empty;
          for (const [step, count] of Object.entries(steps) as Array<[ScanStep, number]>) {
            const findings = normaliser.findings(step, artifact(dir, load(file)), repo);
            expect(findings, `${name} as ${step}`).to.have.length(count);
            expect(identities(findings).size).to.equal(count);
            for (const f of findings) {
              expect(f.ruleId).to.be.a('string').and.not.empty;
              expect(['critical', 'high', 'medium', 'low']).to.include(f.severity);
              expect(f.title).to.be.a('string').and.not.empty;
              expect(f.path).to.not.match(/^\/|\\|(^|\/)\.\.(\/|$)/);
              expect(f.type).to.equal({ vulnerabilities: 'vulnerability', secrets: 'secret', iac: 'iac', sast: 'sast', sbom: '' }[step]);
            }
          }
        });
      }
    }

    it('[S1.1-06] Grype: vulnerability id as rule, purl or name@version as path, severity and fix state mapped', () => {
      const findings = normaliser.findings('vulnerabilities', artifact('grype', load(corpusPath('scanners/grype/grype__json-image.golden.json'))), repo);
      expect(findings).to.deep.include({
        ruleId: 'CVE-1999-0001', path: 'package-1@1.1.1', type: 'vulnerability', severity: 'low', line: null,
        title: 'CVE-1999-0001 in package-1 1.1.1', identifier: 'CVE-1999-0001', packageName: 'package-1', packageVersion: '1.1.1', fixable: true,
      });
      const second = findings.find((f) => f.ruleId === 'CVE-1999-0002')!;
      expect(second).to.include({ path: 'pkg:deb/package-2@2.2.2', severity: 'critical', fixable: null });
      const old = normaliser.findings('vulnerabilities', artifact('grype', load(corpusPath('scanners/grype/grype-0.28.0__image-all-fields.json'))), repo);
      expect(old.find((f) => f.ruleId === 'CVE-2004-0971')).to.include({ severity: 'low', fixable: false });
    });

    it('[S1.1-06] Gitleaks: rule and file (absolute made relative), high, line kept; no secret or match text anywhere', () => {
      for (const file of corpusFiles('scanners', 'gitleaks')) {
        const doc = load(file) as Json[] | null;
        const findings = normaliser.findings('secrets', artifact('gitleaks', doc), repo);
        const written = JSON.stringify(findings);
        for (const leak of doc ?? []) {
          for (const secret of [leak.Secret, leak.Match]) if (secret && secret.length >= 6) expect(written).to.not.include(secret);
        }
        findings.forEach((f) => expect(f.severity).to.equal('high'));
      }
      const many = normaliser.findings('secrets', artifact('gitleaks', load(corpusPath('scanners/gitleaks/gitleaks-8__many.json'))), repo);
      expect(many.find((f) => f.ruleId === 'aws-access-token')).to.include({ path: 'conf/aws.tf', line: 2, title: 'AWS' });
    });

    it('[S1.1-06] Trivy secrets: the redacted match text is not kept either', () => {
      const doc = load(corpusPath('scanners/trivy/trivy__fs-secrets.json')) as Json;
      const written = JSON.stringify(normaliser.findings('secrets', artifact('trivy', doc), repo));
      for (const r of doc.Results) for (const s of r.Secrets ?? []) expect(written).to.not.include(s.Match);
      expect(written).to.include('AWS Access Key ID');
    });

    it('[S1.1-06] Semgrep: ERROR high, WARNING medium, INFO low; message as title', () => {
      const join = normaliser.findings('sast', artifact('semgrep', load(corpusPath('scanners/semgrep/semgrep__json-join-rules.json'))), repo);
      expect(join.map((f) => [f.ruleId, f.severity, f.line])).to.deep.equal([
        ['rules.join_rules.user-input-with-unescaped-extension', 'high', 9],
        ['rules.join_rules.print', 'low', 46],
      ]);
      const owasp = normaliser.findings('sast', artifact('semgrep', load(corpusPath('scanners/semgrep/semgrep__json-owasp-benchmark.json'))), repo);
      expect(owasp[0]).to.include({ severity: 'medium', path: 'src/main/java/org/owasp/benchmark/testcode/BenchmarkTest02194.java', line: 64 });
      expect(owasp[0].title).to.match(/^Using CBC with PKCS5Padding/).and.not.include('\n');
    });

    it('[S1.1-06] Checkov: the array of per-framework reports, relative paths, medium without a platform severity', () => {
      const findings = normaliser.findings('iac', artifact('checkov', load(corpusPath('scanners/checkov/checkov__multiple-check-types-array.json'))), repo);
      expect(findings.find((f) => f.ruleId === 'CKV_AWS_161')).to.include({ path: 'aws/db-app.tf', line: 1, severity: 'medium', title: 'Ensure RDS database has IAM authentication enabled' });
      expect(findings.find((f) => f.ruleId === 'CKV_DOCKER_3')).to.include({ path: 'aws/resources/Dockerfile', line: null });
    });

    it('[S1.1-06] KICS: query id as rule, Windows separators folded, CRITICAL kept', () => {
      const findings = normaliser.findings('iac', artifact('kics', load(corpusPath('scanners/kics/kics__e2e-089-critical-cicd.json'))), repo);
      expect(findings).to.have.length(1);
      expect(findings[0]).to.include({
        ruleId: '20f14e1a-a899-4e79-9f09-b6a84cd4649b', severity: 'critical', line: 10, title: 'Run Block Injection',
        path: 'path/test/fixtures/test_critical_severity/run_block_injection/test/positive1.yaml',
      });
    });

    it('[S1.1-06] Trivy: one report read per step (vulnerabilities, secrets, misconfigurations)', () => {
      const doc = load(corpusPath('scanners/trivy/trivy__fs-misconfig-and-secrets.json'));
      expect(normaliser.findings('vulnerabilities', artifact('trivy', doc), repo).map((f) => f.ruleId)).to.include('CVE-2021-33503');
      expect(normaliser.findings('secrets', artifact('trivy', doc), repo).map((f) => [f.path, f.severity])).to.deep.include(['secret.txt', 'critical']);
      expect(normaliser.findings('iac', artifact('trivy', doc), repo).map((f) => f.ruleId)).to.deep.equal(['DS002']);
      const unknown = normaliser.findings('vulnerabilities', artifact('trivy', load(corpusPath('scanners/trivy/trivy__gomod-vex-filtered.json'))), repo);
      expect(unknown.find((f) => f.ruleId === 'GMS-2022-20')).to.include({ severity: 'medium', fixable: true });
    });

    it('[S1.1-06] SARIF from a scanner: absolute locations made relative instead of refused', () => {
      const findings = normaliser.findings('vulnerabilities', artifact('grype', load(corpusPath('scanners/grype/grype__sarif-dir.golden.sarif'))), repo);
      expect(findings.map((f) => f.path).sort()).to.deep.equal(['some/path/somefile-1.txt', 'some/path/somefile-2.txt']);
      expect(findings[0].toolName).to.equal('grype');
    });

    it('[S1.1-06] a sub-path target gets repository-relative paths; package coordinates stay as they are', () => {
      const sub: ScanTarget = { ...repo, subPath: 'services/api/' };
      const leaks = normaliser.findings('secrets', artifact('gitleaks', load(corpusPath('scanners/gitleaks/gitleaks-8__many.json'))), sub);
      expect(leaks.map((f) => f.path)).to.include('services/api/conf/aws.tf');
      const vulns = normaliser.findings('vulnerabilities', artifact('grype', load(corpusPath('scanners/grype/grype__json-image.golden.json'))), sub);
      expect(vulns.map((f) => f.path)).to.include('pkg:deb/package-2@2.2.2');
    });

    it('[S1.1-07] the same output gives the same findings, whoever ran it', () => {
      for (const dir of ['grype', 'semgrep', 'kics']) {
        const file = corpusFiles('scanners', dir).find((f) => f.endsWith('.json'))!;
        const once = normaliser.findings(dir === 'grype' ? 'vulnerabilities' : dir === 'semgrep' ? 'sast' : 'iac', artifact(dir, load(file)), repo);
        const again = new ScannerOutputNormaliser().findings(dir === 'grype' ? 'vulnerabilities' : dir === 'semgrep' ? 'sast' : 'iac', artifact(dir, load(file)), repo);
        expect(again).to.deep.equal(once);
      }
    });

    it('reads the tool version the output states', () => {
      expect(reportedToolVersion(load(corpusPath('scanners/grype/grype-0.28.0__image-all-fields.json')))).to.equal('0.28.0');
      expect(reportedToolVersion(load(corpusPath('scanners/grype/grype__json-empty.golden.json')))).to.equal(null);
      expect(reportedToolVersion(load(corpusPath('scanners/checkov/checkov__multiple-check-types-array.json')))).to.equal('2.0.209');
      expect(reportedToolVersion(load(corpusPath('scanners/semgrep/semgrep__json-join-rules.json')))).to.equal('0.42');
      expect(reportedToolVersion(load(corpusPath('scanners/syft/syft__cyclonedx-1.6-image.golden.json')))).to.equal('0.42.0-bogus');
    });

    it('[S1.2.9-09] SBOM: no finding; the licence policy lists denied licences of components, nested ones included', () => {
      const doc = load(corpusPath('scanners/syft/syft__cyclonedx-1.6-image.golden.json')) as Json;
      expect(normaliser.disallowedLicences(artifact('syft', doc))).to.deep.equal([]);
      const components = [
        ...doc.components,
        { type: 'library', name: 'agpl-lib', version: '1.0', purl: 'pkg:npm/agpl-lib@1.0', licenses: [{ license: { id: 'AGPL-3.0-only' } }] },
        { type: 'library', name: 'dual', version: '2', licenses: [{ expression: 'MIT OR AGPL-3.0-or-later' }] },
        { type: 'library', name: 'both', version: '3', licenses: [{ expression: '(MIT AND SSPL-1.0)' }] },
        { type: 'library', name: 'spelled', licenses: [{ license: { name: 'GNU Affero General Public License v3' } }] },
        { type: 'library', name: 'outer', version: '1', licenses: [{ license: { id: 'MIT' } }], components: [{ type: 'library', name: 'inner', version: '9', licenses: [{ license: { id: 'agpl-1.0' } }] }] },
      ];
      const found = normaliser.disallowedLicences(artifact('syft', { ...doc, components }));
      expect(found).to.deep.equal([
        { component: 'pkg:npm/agpl-lib@1.0', licence: 'AGPL-3.0-only' },
        { component: 'both@3', licence: '(MIT AND SSPL-1.0)' },
        { component: 'spelled', licence: 'GNU Affero General Public License v3' },
        { component: 'inner@9', licence: 'agpl-1.0' },
      ]);
      const stricter = new ScannerOutputNormaliser({ disallowedLicences: ['MIT'] });
      expect(stricter.disallowedLicences(artifact('syft', doc)).map((l) => l.component)).to.deep.equal(['a-purl-1']);
    });
  });

  describe('the licence policy', () => {
    it('documents its default deny-list and evaluates SPDX expressions', () => {
      expect(DEFAULT_DISALLOWED_LICENCES).to.deep.equal(['AGPL-1.0*', 'AGPL-3.0*', 'SSPL-1.0']);
      const policy = new LicencePolicy();
      expect(policy.deniesExpression('AGPL-3.0')).to.equal(true);
      expect(policy.deniesExpression('Apache-2.0 OR AGPL-3.0-only')).to.equal(false);
      expect(policy.deniesExpression('Apache-2.0 AND (MIT OR SSPL-1.0)')).to.equal(false);
      expect(policy.deniesExpression('(AGPL-3.0-only OR SSPL-1.0) AND MIT')).to.equal(true);
      expect(policy.deniesExpression('GPL-2.0-only WITH Classpath-exception-2.0')).to.equal(false);
      expect(policy.deniesExpression('AGPL-3.0-or-later WITH some-exception')).to.equal(true);
      expect(policy.deniesExpression('((unbalanced AGPL-3.0')).to.equal(false);
      expect(policy.deniesId('Server Side Public License')).to.equal(true);
    });
  });

  describe('garbage and hostile output', () => {
    const steps: ScanStep[] = ['sbom', 'vulnerabilities', 'secrets', 'iac', 'sast'];
    const tools: Record<ScanStep, string> = { sbom: 'syft', vulnerabilities: 'grype', secrets: 'gitleaks', iac: 'checkov', sast: 'semgrep' };

    it('[S1.3.1-16] output of the wrong kind is a transient failure naming the step and the tool', () => {
      for (const step of steps) {
        for (const output of ['not json', 42, true, {}, { unrelated: 1 }, [1, 2]]) {
          const failure = transient(() => normaliser.findings(step, artifact(tools[step], output), repo));
          expect(failure.reason).to.include(`The ${step} step's output from ${tools[step]}`);
        }
      }
    });

    it('[S1.3.1-16] another tool\'s report under a step, or a shape the named tool does not write, is refused', () => {
      const grype = { matches: [], descriptor: { name: 'grype' } };
      transient(() => normaliser.findings('secrets', artifact('gitleaks', grype), repo));
      transient(() => normaliser.findings('vulnerabilities', artifact('grype', { bomFormat: 'CycloneDX', components: [] }), repo));
      transient(() => normaliser.findings('sbom', artifact('syft', grype), repo));
      transient(() => normaliser.findings('sast', artifact('semgrep', { runs: [], version: '2.0.0' }), repo));
    });

    it('[S1.3.1-16] a finding without its rule, package or location fails the whole step, never a partial list', () => {
      transient(() => normaliser.findings('vulnerabilities', artifact('grype', { matches: [{ vulnerability: { severity: 'High' }, artifact: { name: 'x', version: '1' } }] }), repo));
      transient(() => normaliser.findings('vulnerabilities', artifact('grype', { matches: 'many' }), repo));
      transient(() => normaliser.findings('vulnerabilities', artifact('grype', { matches: [null] }), repo));
      transient(() => normaliser.findings('secrets', artifact('gitleaks', [{ RuleID: 'aws', StartLine: 1 }]), repo));
      transient(() => normaliser.findings('sast', artifact('semgrep', { results: [{ check_id: 'r' }], errors: [] }), repo));
      transient(() => normaliser.findings('sast', artifact('semgrep', { results: [7], errors: [] }), repo));
      transient(() => normaliser.findings('iac', artifact('checkov', { check_type: 'terraform', results: { failed_checks: [{ check_id: 'CKV_1' }] } }), repo));
      transient(() => normaliser.findings('iac', artifact('kics', { kics_version: 'x', queries: [{ query_id: 'q', files: [{ line: 1 }] }] }), repo));
    });

    it('accepts the empty forms the tools really print: gitleaks null or [], checkov summary only, semgrep and grype empty lists', () => {
      expect(normaliser.findings('secrets', artifact('gitleaks', null), repo)).to.deep.equal([]);
      expect(normaliser.findings('secrets', artifact('gitleaks', []), repo)).to.deep.equal([]);
      expect(normaliser.findings('iac', artifact('checkov', { passed: 0, failed: 0, skipped: 0, parsing_errors: 0, resource_count: 0, checkov_version: '3.2.0' }), repo)).to.deep.equal([]);
      expect(normaliser.findings('sast', artifact('semgrep', { results: [], errors: [] }), repo)).to.deep.equal([]);
      expect(normaliser.findings('vulnerabilities', artifact('grype', { matches: [] }), repo)).to.deep.equal([]);
    });

    it('[S1.2.3-14] paths that climb, are absolute, carry control characters or the mount point come out inside the tree', () => {
      const leaks = [
        { RuleID: 'r1', File: '../../../etc/passwd', StartLine: 1 },
        { RuleID: 'r2', File: '/src/app/../../../x.py', StartLine: 1 },
        { RuleID: 'r3', File: 'file:///src/app/a%20b.py', StartLine: 1 },
        { RuleID: 'r4', File: 'a\u0000b\u001f/c.py', StartLine: 1 },
        { RuleID: 'r5', File: 'C:\\work\\app\\main.py', StartLine: 1 },
      ];
      const findings = normaliser.findings('secrets', artifact('gitleaks', leaks), repo);
      expect(findings.map((f) => f.path)).to.deep.equal(['etc/passwd', 'x.py', 'app/a b.py', 'ab/c.py', 'C:/work/app/main.py']);
      expect(scannerPath('/src')).to.equal('');
      expect(scannerPath('/srcfoo/x')).to.equal('srcfoo/x');
      expect(scannerPath('x/./y//z', '/sub/')).to.equal('sub/x/y/z');
    });

    it('[S1.2.3-14] one identity reported twice is one finding with the worst severity', () => {
      const results = [
        { check_id: 'r', path: 'a.py', start: { line: 9 }, extra: { severity: 'INFO', message: 'm' } },
        { check_id: 'r', path: '/src/a.py', start: { line: 3 }, extra: { severity: 'ERROR', message: 'm' } },
        { check_id: 'r', path: 'b.py', start: { line: 1 }, extra: { severity: 'WARNING', message: 'm', is_ignored: true } },
      ];
      const findings = normaliser.findings('sast', artifact('semgrep', { results, errors: [] }), repo);
      expect(findings).to.have.length(1);
      expect(findings[0]).to.include({ path: 'a.py', severity: 'high', line: 9 });
    });

    it('bounds titles and rule ids; JSON with __proto__ keys pollutes nothing', () => {
      const long = 'x'.repeat(10_000);
      const [finding] = normaliser.findings('sast', artifact('semgrep', { results: [{ check_id: long, path: 'a', extra: { message: long } }] }), repo);
      expect(finding.title.length).to.equal(MAX_TITLE_LENGTH);
      expect(finding.ruleId.length).to.equal(512);
      const hostile = JSON.parse('{"__proto__": {"polluted": true}, "matches": [], "constructor": {"prototype": {"polluted": true}}}');
      expect(normaliser.findings('vulnerabilities', artifact('grype', hostile), repo)).to.deep.equal([]);
      expect(({} as Json).polluted).to.equal(undefined);
    });

    it('[S1.8.2-20] a failure reason is at most 1,000 characters, whatever the output said', () => {
      const uri = `${'d/'.repeat(2000)}x.py`;
      const sarif = { version: '2.1.0', runs: [{ tool: { driver: { name: 'semgrep' } }, results: [{ ruleId: 'r', message: {}, locations: [{ physicalLocation: { artifactLocation: { uri: `http://evil/${uri}` } } }] }] }] };
      const failure = transient(() => normaliser.findings('sast', artifact('semgrep', sarif), repo));
      expect(failure.reason.length).to.be.at.most(1000);
    });
  });
});
