import { expect } from 'chai';
import * as fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { StepArtifact } from '../../../application/ports/scanning';
import { ManualClock } from '../../../application/ports/clock';
import { seedFindings } from '../../support/backlog';
import { corpusAvailable, corpusDir, corpusPath } from '../../support/corpus';
import { ENGINES, engineAvailable } from '../../support/databases';
import { RunningVigil, startVigil } from '../../support/vigil';
import { FakeExecutor, result, step } from '../../application/scans/fakes';
import { linkPages } from '../../support/link-pages';

type Json = Record<string, any>;
interface Listed { id: number; ruleId: string; severity: string; remediationDeadline: string | null; owaspCategories: string[]; firstSeenAt: string }

const FIXTURE = 'sarif/semgrep/semgrep-1.69.0.sarif';
const DAY = 86_400_000;

/** Without the fixture corpus: skipped with a message, except under CI (as requireCorpus). */
function needCorpus(ctx: Mocha.Context): void {
  if (corpusAvailable()) return;
  if (process.env.CI === 'true') throw new Error(`The fixture corpus is missing at ${corpusDir}; CI requires it.`);
  ctx.skip();
}

/**
 * What the fixture's rules say, read here without the parser: rule id -> the categories its tags
 * `OWASP-A<rank>:<year>-<name>` name, rank on two digits (the normal form of ADR 0021).
 */
function categoriesByRule(log: Json): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const rule of log.runs[0].tool.driver.rules as Json[]) {
    const codes = ((rule.properties?.tags ?? []) as string[]).map((t) => /^OWASP-A(\d{1,2}):(\d{4})/.exec(t)).filter((m): m is RegExpExecArray => m !== null)
      .map((m) => `A${m[1].padStart(2, '0')}:${m[2]}`);
    out.set(rule.id, [...new Set(codes)].sort());
  }
  return out;
}

/**
 * Issue #16: GET /issues?owasp_category= finds the issues whose SAST rule names that OWASP Top 10
 * category (recorded from the real Semgrep SARIF on import, kept by a rebuild), and sort=deadline
 * orders by remediation deadline with keyset paging, on every engine.
 */
for (const engine of ENGINES) describe(`GET /issues: owasp_category from real Semgrep SARIF and sort=deadline [${engine}] @db`, function () {
  this.timeout(120_000);
  let v: RunningVigil;
  let admin: string;
  let repo: number;
  let byRule: Map<string, string[]>;
  const clock = new ManualClock(new Date('2026-03-01T08:00:00.000Z'));

  const list = async (query: string) => {
    const r = await v.request('GET', `/issues?repository_id=${repo}&${query}`, { token: admin });
    expect(r.status, r.text).to.equal(200);
    return { items: r.body as Listed[], link: r.headers.get('link') };
  };
  /** Every page from the first, following Link rel="next" as a client would. */
  const allPages = async (query: string) => {
    const { items: seen, pages } = await linkPages<Listed>(v, `/issues?repository_id=${repo}&${query}`, admin);
    return { seen, pages };
  };
  /** Earliest deadline first (ISO instants of one width: code-unit order is time order), none last, then id. */
  const byDeadline = (a: Listed, b: Listed) => {
    const [x, y] = [a.remediationDeadline ?? '\uffff', b.remediationDeadline ?? '\uffff'];
    return x < y ? -1 : x > y ? 1 : a.id - b.id;
  };

  before(async function () {
    needCorpus(this);
    if (!(await engineAvailable(engine))) {
      // eslint-disable-next-line no-console
      console.warn(`  [db] ${engine} not reachable: skipping.`);
      this.skip();
    }
    v = await startVigil({ engine, clock });
    admin = await v.signIn();
    repo = (await v.request('POST', '/repositories', { token: admin, body: { url: `https://git.example/owasp/${engine}` } })).body.id;
    const key = await v.key(admin, { name: 'pipeline', scopes: ['sarif_import'] });
    const governor = await v.account(['platform_governor']);
    const source = await v.request('POST', '/sarif-sources', { token: governor.token, body: { slug: 'semgrep-ci', name: 'CI', api_key_id: key.id, repository_id: repo, kinds: ['sarif'], tools: ['Semgrep OSS'] } });
    expect(source.status, source.text).to.equal(201);
    const body = fs.readFileSync(corpusPath(FIXTURE));
    byRule = categoriesByRule(JSON.parse(body.toString('utf8')));
    const imported = await v.request('POST', `/repositories/${repo}/sarif-imports`, { apiKey: key.key, raw: body, contentType: 'application/sarif+json' });
    expect(imported.status, imported.text).to.equal(201);
    // Findings first seen at other instants (days from the import), so that deadlines interleave across
    // severities and tie: with windows of 7, 30, 90 and 180 days, 0002, 0003 (critical, day -7) and 0004
    // (high, day -30) are all due on day 0; 0001 (high, day -40) and 0006 (medium, day -100) on day -10.
    const seeds: Array<[number, string, 'critical' | 'high' | 'medium' | 'low']> = [
      [-40, 'CVE-2099-0001', 'high'], [-7, 'CVE-2099-0002', 'critical'], [-7, 'CVE-2099-0003', 'critical'], [-30, 'CVE-2099-0004', 'high'],
      [-200, 'CVE-2099-0005', 'low'], [-100, 'CVE-2099-0006', 'medium'], [3, 'CVE-2099-0007', 'low'], [-1, 'CVE-2099-0008', 'critical'],
    ];
    for (const [i, [days, ruleId, severity]] of seeds.entries()) {
      clock.set(new Date(Date.parse('2026-03-01T08:00:00.000Z') + days * DAY));
      await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId, severity }], { toolKey: `scanner:seed-${i}` });
    }
    clock.set('2026-03-05T08:00:00.000Z');
    admin = await v.signIn();
  });
  after(async () => { await v?.stop(); });

  it('[S1.4.5-03] owasp_category=A03:2021 lists exactly the imported issues whose rule is tagged OWASP-A03:2021, with their categories', async () => {
    const whole = (await list('limit=1000')).items;
    const imported = whole.filter((i) => byRule.has(i.ruleId));
    expect(imported.length).to.be.greaterThan(10);
    for (const i of whole) expect(i.owaspCategories, i.ruleId).to.deep.equal(byRule.get(i.ruleId) ?? []);
    const want = imported.filter((i) => byRule.get(i.ruleId)!.includes('A03:2021')).map((i) => i.id);
    expect(want.length).to.be.greaterThan(0);
    const got = (await list('owasp_category=A03:2021&limit=1000')).items;
    expect(got.map((i) => i.id)).to.deep.equal(want);
    expect(got.every((i) => i.owaspCategories.includes('A03:2021'))).to.equal(true);
    const one = await v.request('GET', `/issues/${want[0]}`, { token: admin });
    expect(one.body.owaspCategories).to.deep.equal(byRule.get(one.body.ruleId));
  });

  it('[S1.4.5-03] the filter takes A1:2017, a01:2017 and A01:2017 alike (Semgrep writes OWASP-A1:2017-Injection), and a category nobody names finds nothing', async () => {
    const want = (await list('limit=1000')).items.filter((i) => (byRule.get(i.ruleId) ?? []).includes('A01:2017')).map((i) => i.id);
    expect(want.length).to.be.greaterThan(0);
    for (const code of ['A1:2017', 'a01:2017', 'A01:2017']) expect((await list(`owasp_category=${code}&limit=1000`)).items.map((i) => i.id), code).to.deep.equal(want);
    expect((await list('owasp_category=A10:2021')).items).to.deep.equal([]);
  });

  it('[S1.4.5-03] the filter combines with sort=deadline and pages of 2 through Link: each issue once, in order', async () => {
    const whole = (await list('owasp_category=A03:2021&sort=deadline&limit=1000')).items;
    expect(whole.map((i) => i.id)).to.deep.equal([...whole].sort(byDeadline).map((i) => i.id));
    const { seen, pages } = await allPages('owasp_category=a3:2021&sort=deadline&limit=2');
    expect(seen.map((i) => i.id)).to.deep.equal(whole.map((i) => i.id));
    expect(pages).to.equal(Math.ceil(whole.length / 2));
  });

  it('sort=deadline: earliest remediation deadline first, ties in id order, across pages of 3 through Link (after, after_key), each issue once', async () => {
    const whole = (await list('sort=deadline&limit=1000')).items;
    expect(whole).to.have.length(new Set(whole.map((i) => i.id)).size);
    expect(whole.every((i) => i.remediationDeadline !== null)).to.equal(true);
    expect(whole.map((i) => i.id)).to.deep.equal([...whole].sort(byDeadline).map((i) => i.id));
    // The seeded ties: two criticals and a high due at the same instant; a high and a medium at another.
    const tie = whole.filter((i) => ['CVE-2099-0002', 'CVE-2099-0003', 'CVE-2099-0004'].includes(i.ruleId));
    expect(tie.map((i) => i.remediationDeadline)).to.deep.equal(Array(3).fill('2026-03-01T08:00:00.000Z'));
    expect(whole.slice(0, 3).map((i) => i.ruleId)).to.deep.equal(['CVE-2099-0005', 'CVE-2099-0001', 'CVE-2099-0006']);
    expect(whole[whole.length - 1].ruleId).to.equal('CVE-2099-0007');
    const first = await list('sort=deadline&limit=3');
    expect(first.link).to.match(/sort=deadline/).and.match(/after=\d+&after_key=\d{4}-\d\d-\d\dT\d\d%3A\d\d%3A\d\d\.\d{3}Z>/);
    const { seen } = await allPages('sort=deadline&limit=3');
    expect(seen.map((i) => i.id)).to.deep.equal(whole.map((i) => i.id));
  });

  it('sort=deadline follows the remediation windows in force (remediation_days_*), and still pages without repeats or gaps', async () => {
    const changed = await v.request('PATCH', '/settings', { token: admin, body: { remediation_days_low: 1, remediation_days_critical: 60 } });
    expect(changed.status, changed.text).to.equal(200);
    try {
      const whole = (await list('sort=deadline&limit=1000')).items;
      expect(whole.map((i) => i.id)).to.deep.equal([...whole].sort(byDeadline).map((i) => i.id));
      expect(whole[0].ruleId).to.equal('CVE-2099-0005'); // low, seen 200 days before: now due a day after
      expect((await allPages('sort=deadline&limit=4')).seen.map((i) => i.id)).to.deep.equal(whole.map((i) => i.id));
    } finally {
      await v.request('PATCH', '/settings', { token: admin, body: { remediation_days_low: 180, remediation_days_critical: 7 } });
    }
  });

  it('sort=deadline puts an issue without a deadline (a severity outside the four, as an older event may hold) last, and pages past it', async () => {
    await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId: 'NO-DEADLINE-1', severity: 'unknown' as never }, { ruleId: 'NO-DEADLINE-2', severity: 'unknown' as never }], { toolKey: 'scanner:odd' });
    const whole = (await list('sort=deadline&limit=1000')).items;
    expect(whole.slice(-2).map((i) => [i.ruleId, i.remediationDeadline])).to.deep.equal([['NO-DEADLINE-1', null], ['NO-DEADLINE-2', null]]);
    expect(whole.map((i) => i.id)).to.deep.equal([...whole].sort(byDeadline).map((i) => i.id));
    const { seen } = await allPages(`sort=deadline&limit=${whole.length - 1}`);
    expect(seen.map((i) => i.id)).to.deep.equal(whole.map((i) => i.id));
    const last = await list(`sort=deadline&limit=1&after=${whole[whole.length - 2].id}&after_key=9999-12-31T23:59:59.999Z`);
    expect(last.items.map((i) => i.ruleId)).to.deep.equal(['NO-DEADLINE-2']);
  });

  it('a projection rebuild writes the same categories from the log', async () => {
    const k = v.database.db.knex;
    const rows = async () => (await k('issue_owasp_categories').select('issue_id', 'category').orderBy(['issue_id', 'category'])).map((r: Json) => `${r.issue_id} ${r.category}`);
    const before = await rows();
    expect(before.length).to.be.greaterThan(0);
    const answer = (await list('owasp_category=A03:2021&sort=deadline&limit=1000')).items;
    await v.services.projections.stop();
    await v.services.projections.rebuild();
    v.services.projections.start();
    expect(await rows()).to.deep.equal(before);
    expect((await list('owasp_category=A03:2021&sort=deadline&limit=1000')).items).to.deep.equal(answer);
  });
});

/**
 * The built-in scan path (the real normaliser; only Docker is stood in for at the scanning port): the
 * SAST step's Semgrep JSON and a Semgrep SARIF give their issues the categories their rules name.
 */
describe('Built-in SAST scans record OWASP categories (Semgrep JSON and SARIF from the corpus)', function () {
  this.timeout(120_000);
  let v: RunningVigil;
  let admin: string;
  const executor = new FakeExecutor();

  before(async function () {
    needCorpus(this);
    v = await startVigil({ env: { ENCRYPTION_KEY: randomBytes(32).toString('base64') }, overrides: { scanExecutor: executor } });
    admin = await v.signIn();
  });
  after(async () => { await v?.stop(); });

  const scanned = async (name: string, sast: StepArtifact) => {
    const repo = (await v.request('POST', '/repositories', { token: admin, body: { url: `https://git.example/owasp-scan/${name}`, scanManualOnly: true } })).body.id;
    expect((await v.request('POST', `/repositories/${repo}/scan`, { token: admin, body: {} })).status).to.equal(200);
    executor.returns(result({ sbom: null, vulnerabilities: null, secrets: null, iac: null, sast }));
    expect(await v.services.scanWorker.runOnce()).to.deep.equal(['completed']);
    return repo;
  };
  const listed = async (repo: number, query = '') => (await v.request('GET', `/issues?repository_id=${repo}&limit=1000${query}`, { token: admin })).body as Listed[];

  it('[S1.4.5-03] Semgrep JSON extra.metadata.owasp "A3: Sensitive Data Exposure" (no year) is A03:2017, and the filter finds those issues', async () => {
    const output = JSON.parse(fs.readFileSync(corpusPath('scanners/semgrep/semgrep__json-owasp-benchmark.json'), 'utf8'));
    const repo = await scanned('json', { tool: 'semgrep', toolVersion: '1.0', output });
    const issues = await listed(repo);
    expect(issues).to.have.length(output.results.length);
    expect(issues.map((i) => i.owaspCategories)).to.deep.equal(issues.map(() => ['A03:2017']));
    expect((await listed(repo, '&owasp_category=A3:2017')).map((i) => i.id)).to.deep.equal(issues.map((i) => i.id));
    expect(await listed(repo, '&owasp_category=A03:2021')).to.deep.equal([]);
  });

  it('[S1.4.5-03] a Semgrep SARIF from the SAST step: each issue carries its rule\'s tags in normal form', async () => {
    const body = fs.readFileSync(corpusPath(FIXTURE), 'utf8');
    const byRule = categoriesByRule(JSON.parse(body));
    const repo = await scanned('sarif', { tool: 'semgrep', toolVersion: '1.69.0', output: JSON.parse(body) });
    const issues = await listed(repo);
    expect(issues.length).to.be.greaterThan(10);
    for (const i of issues) expect(i.owaspCategories, i.ruleId).to.deep.equal(byRule.get(i.ruleId) ?? []);
    const injection = await listed(repo, '&owasp_category=a01:2017');
    expect(injection.map((i) => i.id)).to.deep.equal(issues.filter((i) => (byRule.get(i.ruleId) ?? []).includes('A01:2017')).map((i) => i.id));
    expect(injection.length).to.be.greaterThan(0);
  });
});
