import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { parseCoverage } from '../../infrastructure/parsers/coverage';
import { CycloneDxValidator, parseBuildSbom } from '../../infrastructure/parsers/cyclonedx';
import { parseTestReport } from '../../infrastructure/parsers/junit';
import { parseSarif } from '../../infrastructure/parsers/sarif';
import { makeZip } from './support';

/**
 * The parsers at the sizes of the import benchmark (30 MB SARIF with 50,000 results in under 10 s
 * for the whole import, a 15 MB JaCoCo and a 30 MB zip of 2,000 JUnit documents in under 5 s, a
 * 9,000-component SBOM in under 2 s). The parser gets at most half of each budget, so that the
 * import around it has room; only the parse is timed, not building the input.
 */
const timed = async <T>(run: () => T | Promise<T>): Promise<{ value: T; ms: number }> => {
  const started = process.hrtime.bigint();
  const value = await run();
  return { value, ms: Number(process.hrtime.bigint() - started) / 1e6 };
};

describe('parsers at benchmark sizes', function () {
  this.timeout(60_000);

  it('SARIF: 30 MB, 50,000 results, parsed in under 5 s', async () => {
    const rules = Array.from({ length: 400 }, (_, i) => ({ id: `R${i}`, properties: { 'security-severity': String((i % 100) / 10) } }));
    const results = Array.from({ length: 50_000 }, (_, i) => ({
      ruleId: `R${i % 400}`,
      message: { text: `Finding ${i}: ${'lorem ipsum '.repeat(40)}` },
      locations: [{ physicalLocation: { artifactLocation: { uri: `src/m${i % 97}/File${i}.java`, uriBaseId: '%SRCROOT%' }, region: { startLine: (i % 900) + 1 } } }],
      partialFingerprints: { primaryLocationLineHash: `${i.toString(16)}:1` },
    }));
    const body = Buffer.from(JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name: 'Bench', version: '1.0', rules } }, results }] }));
    expect(body.length).to.be.above(30 * 1024 * 1024);
    const { value, ms } = await timed(() => parseSarif(body));
    expect(value.resultsCount).to.equal(50_000);
    expect(value.runs[0].findings).to.have.length(50_000);
    expect(ms).to.be.below(5000);
  });

  it('JaCoCo: 15 MB parsed in under 2.5 s', async () => {
    const parts: string[] = ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?><!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd"><report name="bench">'];
    let size = 0;
    let packages = 0;
    while (size < 15 * 1024 * 1024) {
      const p = `<package name="org/bench/p${packages}"><class name="org/bench/p${packages}/C" sourcefilename="C.java"><method name="m" desc="()V" line="3"><counter type="INSTRUCTION" missed="1" covered="4"/><counter type="LINE" missed="1" covered="2"/></method><counter type="LINE" missed="1" covered="2"/></class><sourcefile name="C.java"><line nr="3" mi="0" ci="3" mb="0" cb="0"/><line nr="4" mi="0" ci="2" mb="1" cb="1"/><line nr="5" mi="1" ci="0" mb="0" cb="0"/><counter type="LINE" missed="1" covered="2"/></sourcefile><counter type="LINE" missed="1" covered="2"/><counter type="BRANCH" missed="1" covered="1"/></package>`;
      parts.push(p);
      size += p.length;
      packages++;
    }
    parts.push(`<counter type="LINE" missed="${packages}" covered="${2 * packages}"/><counter type="BRANCH" missed="${packages}" covered="${packages}"/></report>`);
    const body = Buffer.from(parts.join(''));
    const { value, ms } = await timed(() => parseCoverage('jacoco', body));
    expect(value).to.deep.include({ linesTotal: 3 * packages, branchesTotal: 2 * packages, packagesState: packages > 10_000 ? 'too_many' : 'kept' });
    expect(ms).to.be.below(2500);
  });

  it('JUnit: a 30 MB zip of 2,000 documents parsed in under 2.5 s', async () => {
    const entries = Array.from({ length: 2000 }, (_, d): [string, Buffer] => {
      const cases = Array.from({ length: 10 }, (_, k) => `<testcase classname="bench.S${d}" name="t${k}" time="0.01">${k === 0 ? '<failure message="boom"/>' : ''}<system-out>${randomBytes(1450).toString('base64')}</system-out></testcase>`);
      return [`surefire-reports/TEST-bench.S${d}.xml`, Buffer.from(`<?xml version="1.0" encoding="UTF-8"?><testsuite name="bench.S${d}" tests="10">${cases.join('')}</testsuite>`)];
    });
    const zip = await makeZip(entries);
    expect(zip.length).to.be.above(28 * 1024 * 1024);
    const { value, ms } = await timed(() => parseTestReport(zip, 'application/zip'));
    expect(value).to.deep.include({ documents: 2000, suites: 2000, tests: 20_000, failures: 2000 });
    expect(ms).to.be.below(2500);
  });

  it('CycloneDX: 9,000 components validated (schema compiled included) in under 1.5 s', async () => {
    const components = Array.from({ length: 9000 }, (_, i) => ({
      type: 'library',
      'bom-ref': `pkg:maven/org.bench/lib${i}@1.${i}.0`,
      group: 'org.bench',
      name: `lib${i}`,
      version: `1.${i}.0`,
      purl: `pkg:maven/org.bench/lib${i}@1.${i}.0`,
      licenses: [{ license: { id: 'Apache-2.0' } }],
      hashes: [{ alg: 'SHA-256', content: randomBytes(32).toString('hex') }],
    }));
    const body = Buffer.from(
      JSON.stringify({
        bomFormat: 'CycloneDX',
        specVersion: '1.6',
        serialNumber: 'urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79',
        version: 1,
        metadata: { timestamp: '2025-01-01T00:00:00Z', component: { type: 'application', name: 'bench' } },
        components,
        dependencies: components.map((c, i) => ({ ref: c['bom-ref'], dependsOn: i + 1 < components.length ? [components[i + 1]['bom-ref']] : [] })),
      }),
    );
    const { value, ms } = await timed(() => parseBuildSbom(body, new CycloneDxValidator()));
    expect(value.components).to.have.length(9000);
    expect(ms).to.be.below(1500);
  });
});
