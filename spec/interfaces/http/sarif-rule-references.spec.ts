import { expect } from 'chai';
import { requireCorpus } from '../../support/corpus';
import { RunningVigil, startVigil } from '../../support/vigil';
import { readCorpus } from '../../parsers/support';
import { independent } from '../../parsers/sarif-decisions';

type Json = Record<string, any>;

/**
 * SARIF results that name their rule through rule.toolComponent (SARIF 2.1.0 §3.27.7, §3.52-3.54),
 * imported over HTTP: real logs from the corpus, read in place, and variants made from them in
 * memory. Counts and severities are computed here from the original document, not by the parser.
 */
const CODEQL = 'sarif/codeql/codeql-2.24.1-csharp.sarif';
const APPENDIX_K = 'sarif/spec-examples/appendix-k-comprehensive.sarif';
const PACK_GUID = '6f1d2c3b-4a5e-4f60-8a7b-1c2d3e4f5a6b';
const ruleGuid = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
const text = (file: string) => readCorpus(file).toString('utf8').replace(/^\uFEFF/, '');

/** Severity as spec 1 §4.3 reads a rule: security-severity, else level, else the rule's default level, else warning. */
function severityOf(result: Json, rule: Json): string {
  const score = Number(result.properties?.['security-severity'] ?? rule.properties?.['security-severity']);
  if (!Number.isNaN(score)) return score >= 9 ? 'critical' : score >= 7 ? 'high' : score >= 4 ? 'medium' : 'low';
  const level = result.level ?? rule.defaultConfiguration?.level ?? 'warning';
  return level === 'error' ? 'high' : level === 'warning' ? 'medium' : 'low';
}

/** The original CodeQL log's issues, "rule path" -> severity: its results name their rule by ruleId and ruleIndex into the driver. */
function codeqlIssues(doc: Json): Map<string, string> {
  const run = doc.runs[0];
  const issues = new Map<string, string>();
  for (const r of run.results) {
    issues.set(`${r.ruleId} ${r.locations[0].physicalLocation.artifactLocation.uri}`, severityOf(r, run.tool.driver.rules[r.ruleIndex]));
  }
  return issues;
}

/**
 * The CodeQL log with its rules moved into its first extension (the query pack, as newer CodeQL
 * writes them) and each result naming its rule only through `reference`. The driver keeps a rule
 * of each id scored 9.9: a finding read from the driver would be critical.
 */
function movedToPack(reference: (index: number) => Json): string {
  const doc = JSON.parse(text(CODEQL));
  const run = doc.runs[0];
  const pack = run.tool.extensions[0];
  expect(pack.name).to.equal('codeql/csharp-queries');
  pack.guid = PACK_GUID;
  pack.rules = run.tool.driver.rules.map((rule: Json, i: number) => ({ ...rule, guid: ruleGuid(i) }));
  run.tool.driver.rules = run.tool.driver.rules.map((rule: Json) => ({ id: rule.id, properties: { 'security-severity': '9.9' } }));
  for (const result of run.results) {
    const index = result.ruleIndex;
    delete result.ruleId;
    delete result.ruleIndex;
    result.rule = reference(index);
  }
  return JSON.stringify(doc);
}

describe('SARIF imports over HTTP: rules named through tool extensions', function () {
  requireCorpus(this);
  this.timeout(60_000);
  let v: RunningVigil;
  let admin: string;
  let governor: string;

  before(async () => {
    v = await startVigil();
    admin = await v.signIn();
    governor = (await v.account(['platform_governor'])).token;
  });
  after(async () => { await v?.stop(); });

  /** A new repository with a source declaring the corpus tools, and its key. */
  async function source() {
    const repositoryId = (await v.request('POST', '/repositories', { token: admin, body: { url: `https://git.example/refs/${Math.random().toString(36).slice(2)}` } })).body.id;
    const key = await v.key(admin, { name: 'pipeline', scopes: ['sarif_import'] });
    const slug = `refs-${Math.random().toString(36).slice(2, 8)}`;
    const declared = await v.request('POST', '/sarif-sources', { token: governor, body: { slug, name: 'CI', api_key_id: key.id, repository_id: repositoryId, tools: ['CodeQL', 'CodeScanner'] } });
    expect(declared.status, declared.text).to.equal(201);
    return { repositoryId, key: key.key };
  }
  const upload = async (body: string) => {
    const s = await source();
    const r = await v.request('POST', `/repositories/${s.repositoryId}/sarif-imports`, { apiKey: s.key, raw: body, contentType: 'application/sarif+json' });
    return { r, repositoryId: s.repositoryId };
  };
  const issuesOf = async (repositoryId: number) => {
    const list = await v.request('GET', `/issues?repository_id=${repositoryId}&limit=1000`, { token: admin });
    expect(list.status).to.equal(200);
    return list.body as Json[];
  };
  const bySeverity = (issues: Json[]) => new Map(issues.map((i) => [`${i.ruleId} ${i.path}`, i.severity]));

  it('[S1.4.3-23] [S1.4.3-28] the real CodeQL log (tool.extensions, rule objects) as it is: counts and severities computed from the document', async () => {
    const body = text(CODEQL);
    const expected = codeqlIssues(JSON.parse(body));
    const { r, repositoryId } = await upload(body);
    expect(r.status, r.text).to.equal(201);
    expect(r.body).to.include({ resultsCount: independent(body).results, createdCount: expected.size });
    expect(r.body.tools).to.deep.equal(independent(body).tools);
    expect(bySeverity(await issuesOf(repositoryId))).to.deep.equal(expected);
  });

  const variants: Array<[string, (i: number) => Json]> = [
    ['by extension index', (i) => ({ index: i, toolComponent: { index: 0 } })],
    ['by extension guid', (i) => ({ index: i, toolComponent: { guid: PACK_GUID.toUpperCase() } })],
    ['by extension name', (i) => ({ index: i, toolComponent: { name: 'codeql/csharp-queries' } })],
    ['by rule guid only', (i) => ({ guid: ruleGuid(i) })],
    ['by rule guid in the named extension', (i) => ({ guid: ruleGuid(i), toolComponent: { name: 'codeql/csharp-queries' } })],
  ];
  for (const [how, reference] of variants) {
    it(`[S1.4.3-23] [S1.4.3-27] the CodeQL log with its rules in the query pack, each result naming its rule ${how}: the same issues, severities from the pack's rules`, async () => {
      const original = JSON.parse(text(CODEQL));
      const expected = codeqlIssues(original);
      const body = movedToPack(reference);
      const { r, repositoryId } = await upload(body);
      expect(r.status, r.text).to.equal(201);
      expect(r.body).to.include({ resultsCount: original.runs[0].results.length, createdCount: expected.size });
      expect(bySeverity(await issuesOf(repositoryId))).to.deep.equal(expected);
    });
  }

  it('[S1.4.3-23] a reference that leads to no component or no rule, without a ruleId: 400 saying what did not match, nothing written', async () => {
    const cases: Array<[string, RegExp]> = [
      [movedToPack((i) => ({ index: i, toolComponent: { index: 3 } })), /names no rule: its rule\.toolComponent \(index 3\) matches no component of the tool \(the driver and 3 extensions/],
      [movedToPack((i) => ({ index: i, toolComponent: { name: 'codeql/java-queries' } })), /rule\.toolComponent \(name "codeql\/java-queries"\) matches no component/],
      [movedToPack(() => ({ guid: '00000000-0000-4000-8000-0000000fffff' })), /names no rule: rule\.guid 00000000-0000-4000-8000-0000000fffff matches no rule/],
      [movedToPack(() => ({ index: 999, toolComponent: { index: 0 } })), /rule index 999 is outside the \d+ rules of the extension "codeql\/csharp-queries"/],
    ];
    for (const [body, detail] of cases) {
      const s = await source();
      const before = await v.eventCount();
      const r = await v.request('POST', `/repositories/${s.repositoryId}/sarif-imports`, { apiKey: s.key, raw: body, contentType: 'application/sarif+json' });
      expect(r.status, r.text).to.equal(400);
      expect(r.body.detail).to.match(/^Result 1 of run 1 \(CodeQL\) names no rule/).and.match(detail);
      expect(await v.eventCount(), 'nothing written').to.equal(before);
    }
  });

  it('[S1.4.3-31] the SARIF specification\'s appendix K log (a rule in an extension) as it is: one result, suppressed, no issue', async () => {
    const body = text(APPENDIX_K);
    const { r, repositoryId } = await upload(body);
    expect(r.status, r.text).to.equal(201);
    expect(independent(body)).to.deep.include({ results: 1, findings: [0] });
    expect(r.body).to.include({ resultsCount: 1, createdCount: 0 });
    expect(await issuesOf(repositoryId)).to.deep.equal([]);
  });

  it('[S1.4.3-23] [S1.4.3-29] appendix K naming the extension\'s rule by component name: its rule id, default level and message string', async () => {
    const doc = JSON.parse(text(APPENDIX_K));
    const [result] = doc.runs[0].results;
    const extension = doc.runs[0].tool.extensions[0];
    delete result.ruleId;
    delete result.ruleIndex;
    delete result.level;
    delete result.suppressions;
    result.rule = { index: 0, toolComponent: { name: extension.name } };
    result.message = { id: 'default', arguments: ['MD5'] };
    const { r, repositoryId } = await upload(JSON.stringify(doc));
    expect(r.status, r.text).to.equal(201);
    expect(r.body).to.include({ resultsCount: 1, createdCount: 1 });
    const [issue] = await issuesOf(repositoryId);
    expect(extension.rules[0]).to.deep.include({ id: 'S0001', defaultConfiguration: { level: 'error' } });
    expect(issue).to.include({ ruleId: 'S0001', severity: 'high', title: 'The cryptographic algorithm \'MD5\' should not be used.' });
  });
});
