import { expect } from 'chai';
import { requireCorpus } from '../../support/corpus';
import { Answer, RunningVigil, startVigil } from '../../support/vigil';
import { makeZip, readCorpus } from '../../parsers/support';

type Json = Record<string, any>;

// Real documents from the corpus, read in place and changed in memory only.
const SARIF = 'sarif/checkov/checkov-2.1.277.sarif';
const COBERTURA = 'coverage/cobertura/cobertura-2.1.1__java.cobertura.xml';
const JUNIT = 'junit/surefire__TEST-StringUtilsTest.xml';
const SBOM = 'sbom/cyclonedx-1.6/trivy__npm-golden.json';

const grouped = (n: number) => n.toLocaleString('en-US');
const json = (file: string): Json => JSON.parse(readCorpus(file).toString('utf8').replace(/^\uFEFF/, ''));
/** The line of a document on which `needle` first appears. */
const lineOf = (text: string, needle: string) => text.slice(0, text.indexOf(needle)).split('\n').length;

/**
 * Issue #17, imported documents: an identifier longer than the column it lands in, or holding a
 * control character, and free text holding a C0 control other than tab, LF and CR, refuse the
 * document with a 400 naming the field and where it is (spec 1 §7: a body that breaks a content
 * rule is 400, not audited); nothing reaches the backlog or the import records.
 */
describe('Text limits and control characters in imported documents (issue #17)', function () {
  this.timeout(120_000);
  let v: RunningVigil;
  let admin: string;
  let repositoryId: number;
  let key: string;

  before(async function () {
    requireCorpus(this.test!.parent!);
    if (this.test!.parent!.pending) return;
    v = await startVigil();
    admin = await v.signIn();
    repositoryId = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/imports/limits', scanManualOnly: true } })).body.id;
    const pipeline = await v.key(admin, { name: 'pipeline', scopes: ['sarif_import', 'report_import', 'read'] });
    key = pipeline.key;
    const governor = await v.account(['platform_governor']);
    const source = await v.request('POST', '/sarif-sources', { token: governor.token, body: {
      slug: 'limits', name: 'CI', api_key_id: pipeline.id, repository_id: repositoryId, kinds: ['sarif', 'coverage', 'test_report', 'sbom'], tools: ['Checkov', 't'.repeat(200)],
    } });
    expect(source.status, source.text).to.equal(201);
  });
  after(async () => { await v?.stop(); });

  const upload = (path: string, body: string | Buffer, contentType: string) => () =>
    v.request('POST', `/repositories/${repositoryId}/${path}`, { apiKey: key, raw: body, contentType });
  const sarif = (doc: Json) => upload('sarif-imports', JSON.stringify(doc), 'application/sarif+json');
  const cobertura = (text: string) => upload('coverage-imports?format=cobertura', text, 'application/xml');
  const junit = (body: string | Buffer, type = 'application/xml') => upload('test-report-imports', body, type);
  const sbom = (doc: Json) => upload('build-sbom-imports', JSON.stringify(doc), 'application/vnd.cyclonedx+json');

  /** 400, a problem document whose detail says `detail`; no event at all (no issue, no record, no audit entry). */
  const refused = async (call: () => Promise<Answer>, detail: string) => {
    const before = await v.eventCount();
    const r = await call();
    expect(r.status, r.text).to.equal(400);
    expect(r.headers.get('content-type')).to.match(/application\/problem\+json/);
    expect(r.body.detail).to.contain(detail);
    expect(await v.eventCount(), 'nothing written').to.equal(before);
  };
  const accepted = async (call: () => Promise<Answer>) => {
    const r = await call();
    expect(r.status, r.text.slice(0, 300)).to.equal(201);
    return r;
  };
  const issues = async (): Promise<Json[]> => (await v.request('GET', `/issues?repository_id=${repositoryId}&limit=1000`, { token: admin })).body;

  describe('SARIF (issues.path 4,096, rule_id 512, tool_name and tool_version 255)', () => {
    it('an artifact uri of 4,097 characters: 400 naming runs[0].results[2]...artifactLocation, nothing written; 4,096 is accepted and kept whole', async () => {
      const doc = json(SARIF);
      doc.runs[0].results[2].locations[0].physicalLocation.artifactLocation.uri = `src/${'u'.repeat(4093)}`;
      await refused(sarif(doc), `In the SARIF log, runs[0].results[2].locations[0].physicalLocation.artifactLocation names a path of ${grouped(4097)} characters; at most ${grouped(4096)}.`);
      doc.runs[0].results[2].locations[0].physicalLocation.artifactLocation.uri = `src/${'u'.repeat(4092)}`;
      await accepted(sarif(doc));
      expect((await issues()).map((i) => i.path)).to.include(`src/${'u'.repeat(4092)}`);
    });

    it('a ruleId of 513 characters: 400 "runs[0].results[2].ruleId is 513 characters; at most 512", nothing written; 512 is accepted (its identifier left empty: too long for one)', async () => {
      const doc = json(SARIF);
      doc.runs[0].results[2].ruleId = 'R'.repeat(513);
      await refused(sarif(doc), 'In the SARIF log, runs[0].results[2].ruleId is 513 characters; at most 512.');
      doc.runs[0].results[2].ruleId = 'R'.repeat(512);
      await accepted(sarif(doc));
      const issue = (await issues()).find((i) => i.ruleId === 'R'.repeat(512));
      expect(issue, 'the issue with the 512-character rule').to.not.equal(undefined);
      expect(issue!.identifier).to.equal(null);
    });

    it('a tool version of 256 characters: 400 naming runs[0].tool.driver.version, nothing written; 255 is accepted', async () => {
      const doc = json(SARIF);
      doc.runs[0].tool.driver.version = 'v'.repeat(256);
      await refused(sarif(doc), 'In the SARIF log, runs[0].tool.driver.version is 256 characters; at most 255.');
      doc.runs[0].tool.driver.version = 'v'.repeat(255);
      const r = await accepted(sarif(doc));
      expect(r.body.tools).to.deep.equal([`Checkov ${'v'.repeat(255)}`]);
    });

    it('a tool name of 256 characters: 400 naming runs[0].tool.driver.name before the source\'s tools are even compared (no audit entry)', async () => {
      const doc = json(SARIF);
      doc.runs[0].tool.driver.name = 't'.repeat(256);
      await refused(sarif(doc), 'In the SARIF log, runs[0].tool.driver.name is 256 characters; at most 255.');
    });

    it('a NUL in a message: 400 naming runs[0].results[1].message.text and the character, nothing written', async () => {
      const doc = json(SARIF);
      doc.runs[0].results[1].message.text = 'Ensure\u0000that';
      await refused(sarif(doc), 'In the SARIF log, runs[0].results[1].message.text holds a control character (U+0000, NUL) at character 7;');
    });

    it('another C0 control in a message is refused; tab, LF, CR (and DEL or C1, which a database takes) are free text', async () => {
      const doc = json(SARIF);
      doc.runs[0].results[1].message.text = 'Ensure\u001bthat';
      await refused(sarif(doc), 'runs[0].results[1].message.text holds a control character (U+001B) at character 7');
      doc.runs[0].results[1].message.text = 'Ensure\tthat\r\nit\u0085is\u007f';
      await accepted(sarif(doc));
    });

    it('a control character in an identifier (ruleId with U+0085, a rule named through ruleIndex, a location uri): 400 naming it', async () => {
      const doc = json(SARIF);
      doc.runs[0].results[0].ruleId = 'CKV\u0085X';
      await refused(sarif(doc), 'runs[0].results[0].ruleId holds a control character (U+0085) at character 4');
      const byIndex = json(SARIF);
      delete byIndex.runs[0].results[0].ruleId;
      byIndex.runs[0].tool.driver.rules[byIndex.runs[0].results[0].ruleIndex].id = 'CKV\u0001X';
      await refused(sarif(byIndex), `runs[0].tool.driver.rules[${byIndex.runs[0].results[0].ruleIndex}].id holds a control character (U+0001) at character 4`);
      const located = json(SARIF);
      located.runs[0].results[3].locations[0].physicalLocation.artifactLocation.uri = 'src/a\u0000b.py';
      await refused(sarif(located), 'contains a control character (at runs[0].results[3].locations[0].physicalLocation.artifactLocation)');
    });
  });

  describe('coverage (Cobertura; coverage_imports.tool_version 255)', () => {
    it('a class filename holding NUL: 400 naming the attribute, its element and where, nothing written', async () => {
      const text = readCorpus(COBERTURA).toString('utf8');
      const changed = text.replace('filename="test/AbstractClass.java"', 'filename="test/Abstract\u0000Class.java"');
      expect(changed).to.not.equal(text);
      await refused(cobertura(changed), `holds a control character (U+0000, NUL) in the filename attribute of <class> (line ${lineOf(changed, '\u0000')}, column`);
    });

    it('a tool version of 256 characters or holding a control character: 400 naming the version attribute of <coverage>; 255 is accepted', async () => {
      const text = readCorpus(COBERTURA).toString('utf8');
      const withVersion = (version: string) => text.replace(/(<coverage\b[^>]*?\bversion=")[^"]*"/, `$1${version}"`);
      expect(withVersion('X')).to.not.equal(text);
      await refused(cobertura(withVersion('9'.repeat(256))), 'In the Cobertura report, the version attribute of <coverage> is 256 characters; at most 255.');
      await refused(cobertura(withVersion('2.1\u00851')), 'the version attribute of <coverage> holds a control character (U+0085) at character 4');
      const r = await accepted(cobertura(withVersion('9'.repeat(255))));
      expect(r.body.toolVersion).to.equal('9'.repeat(255));
    });
  });

  describe('test reports (JUnit: suite and test-case names at most 1,000 characters)', () => {
    it('a test case name of 1,001 characters: 400 naming <testcase> and its line, nothing written; 1,000 is accepted', async () => {
      const text = readCorpus(JUNIT).toString('utf8');
      const named = (name: string) => text.replace('<testcase name="require_fail"', `<testcase name="${name}"`);
      expect(named('x')).to.not.equal(text);
      const long = named('n'.repeat(1001));
      await refused(junit(long), `In the test report, the name of <testcase> on line ${lineOf(long, 'n'.repeat(1001))} is ${grouped(1001)} characters; at most ${grouped(1000)}.`);
      await accepted(junit(named('n'.repeat(1000))));
    });

    it('in a zip, the refusal names the entry; a suite name holding a control character (XML 1.1 allows &#1;) is refused', async () => {
      const text = readCorpus(JUNIT).toString('utf8');
      const long = text.replace('<testcase name="require_fail"', `<testcase name="${'n'.repeat(1001)}"`);
      await refused(junit(await makeZip([['reports/TEST-a.xml', long]]), 'application/zip'), 'In the zip entry "reports/TEST-a.xml", the name of <testcase>');
      const suite = '<?xml version="1.1" encoding="UTF-8"?><testsuite name="suite&#1;one"><testcase classname="c" name="t"/></testsuite>';
      await refused(junit(suite), 'the name of <testsuite> on line 1 holds a control character (U+0001) at character 6');
    });
  });

  describe('build SBOMs (CycloneDX: component name, version, purl, bom-ref)', () => {
    it('a component name holding NUL: 400 naming components[1].name, nothing written', async () => {
      const doc = json(SBOM);
      doc.components[1].name = 'as\u0000ap';
      await refused(sbom(doc), 'In the SBOM, components[1].name holds a control character (U+0000, NUL) at character 3;');
    });

    it('a purl holding NUL, in a nested component: 400 naming components[2].components[0].purl, nothing written', async () => {
      const doc = json(SBOM);
      doc.components[2].components = [{ type: 'library', name: 'inner', purl: 'pkg:npm/inner@1.0.0\u0000' }];
      await refused(sbom(doc), 'In the SBOM, components[2].components[0].purl holds a control character (U+0000, NUL) at character 20;');
    });

    it('a bom-ref of 8,193 characters: 400; the document as it came is accepted', async () => {
      const doc = json(SBOM);
      doc.components[3]['bom-ref'] = 'r'.repeat(8193);
      await refused(sbom(doc), `In the SBOM, components[3].bom-ref is ${grouped(8193)} characters; at most ${grouped(8192)}.`);
      await accepted(sbom(json(SBOM)));
    });
  });
});
