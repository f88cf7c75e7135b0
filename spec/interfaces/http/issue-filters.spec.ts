import { expect } from 'chai';
import { seedFindings } from '../../support/backlog';
import { requireCorpus } from '../../support/corpus';
import { RunningVigil, startVigil } from '../../support/vigil';
import { epssCsv, excerptRow, gz, KEV_OLD, Mirror } from '../../infrastructure/enrichment/mirror';
import { linkPages } from '../../support/link-pages';

const KEV_PATH = '/feeds/known_exploited_vulnerabilities.json';
const EPSS_PATH = '/feeds/epss_scores-current.csv.gz';

interface Listed { id: number; ruleId: string; severity: string; type: string; kev: boolean | null; epss: number | null; firstSeenAt: string; remediationDeadline: string | null }
const RANK: Record<string, number> = { critical: 4, high: 3, medium: 2, low: 1 };

/**
 * GET /issues beyond spec 1 §4.5's four filters, as the web interface's backlog asks for them
 * (issue #16): KEV, an EPSS threshold, the issue type, and orders that hold across pages (keyset:
 * the sort key, then the id, both carried by the Link).
 */
describe('GET /issues: kev, epss_min, type and a sort that holds across pages', function () {
  requireCorpus(this);
  this.timeout(60_000);
  let mirror: Mirror;
  let v: RunningVigil;
  let admin: string;
  let repo: number;
  const KEV_CVE = JSON.parse(KEV_OLD().toString('utf8')).vulnerabilities[0].cveID as string;
  const scored = [excerptRow(0), excerptRow(1), excerptRow(2)];

  const list = async (query: string) => {
    const r = await v.request('GET', `/issues?repository_id=${repo}&${query}`, { token: admin });
    expect(r.status, r.text).to.equal(200);
    return { items: r.body as Listed[], link: r.headers.get('link') };
  };
  /** Every page from the first, following Link rel="next" as a client would. */
  const allPages = async (query: string) => (await linkPages<Listed>(v, `/issues?repository_id=${repo}&${query}`, admin, 50)).items;
  const refused = async (query: string, detail: RegExp) => {
    const r = await v.request('GET', `/issues?${query}`, { token: admin });
    expect(r.status, `${query}: ${r.text}`).to.equal(400);
    expect(r.headers.get('content-type')).to.contain('application/problem+json');
    expect(r.body.detail, query).to.match(detail);
  };

  before(async () => {
    mirror = await new Mirror().start();
    v = await startVigil({ env: { VIGIL_KEV_URL: mirror.url(KEV_PATH), VIGIL_EPSS_URL: mirror.url(EPSS_PATH), VIGIL_KEV_ALLOW_PRIVATE: 'true', VIGIL_EPSS_ALLOW_PRIVATE: 'true' } });
    admin = await v.signIn();
    repo = (await v.request('POST', '/repositories', { token: admin, body: { url: 'https://git.example/filters/one' } })).body.id;
    const severities = ['medium', 'critical', 'low', 'high', 'medium', 'critical', 'high', 'low'];
    await seedFindings(v, { kind: 'repository', id: repo }, [
      { ruleId: KEV_CVE, severity: 'high' },
      ...scored.map(([cve], i) => ({ ruleId: cve, severity: (['low', 'critical', 'medium'] as const)[i] })),
      ...severities.map((severity, i) => ({ ruleId: `CVE-2099-100000${i}`, severity: severity as 'low' })),
    ]);
    await seedFindings(v, { kind: 'repository', id: repo }, [{ ruleId: 'gitleaks.aws-key', identifier: null, severity: 'high' }, { ruleId: 'gitleaks.slack-token', identifier: null, severity: 'medium' }], { toolKey: 'scanner:secret', type: 'secret' });
  });
  after(async () => {
    await v?.stop();
    await mirror?.stop();
  });

  it('kev=true and kev=false both leave out issues whose KEV state is unknown (no feed synchronised yet)', async () => {
    expect((await list('kev=true')).items).to.deep.equal([]);
    expect((await list('kev=false')).items).to.deep.equal([]);
    expect((await list('epss_min=0')).items).to.deep.equal([]);
  });

  it('once the feeds are synchronised: kev=true lists the catalogued CVE, kev=false the others; epss_min keeps scores at least the threshold', async () => {
    mirror.serve(KEV_PATH, { body: KEV_OLD(), headers: { 'content-type': 'application/json' } });
    mirror.serve(EPSS_PATH, { body: gz(epssCsv({ rows: 100_000 })) });
    const synced = await v.request('POST', '/feeds/sync', { token: admin });
    expect(synced.status, synced.text).to.equal(200);
    expect(synced.body.outcomes.map((o: { outcome: string }) => o.outcome)).to.deep.equal(["accepted", "accepted"]);
    expect((await list('kev=true')).items.map((i) => i.ruleId)).to.deep.equal([KEV_CVE]);
    const notListed = (await list('kev=false')).items;
    expect(notListed).to.have.length(13);
    expect(notListed.every((i) => i.kev === false)).to.equal(true);
    const threshold = scored.map(([, score]) => score).sort((a, b) => a - b)[1];
    const above = (await list(`epss_min=${threshold}`)).items;
    expect(above.map((i) => i.ruleId).sort()).to.deep.equal(scored.filter(([, score]) => score >= threshold).map(([cve]) => cve).sort());
    expect(above.every((i) => i.epss! >= threshold)).to.equal(true);
    expect((await list('epss_min=0')).items).to.have.length(3);
    expect((await list('epss_min=1')).items.every((i) => i.epss === 1)).to.equal(true);
  });

  it('type narrows to one kind of issue, and combines with the other filters', async () => {
    expect((await list('type=secret')).items.map((i) => i.ruleId).sort()).to.deep.equal(['gitleaks.aws-key', 'gitleaks.slack-token']);
    expect((await list('type=secret&severity=high')).items.map((i) => i.ruleId)).to.deep.equal(['gitleaks.aws-key']);
    expect((await list('type=vulnerability&kev=true')).items.map((i) => i.ruleId)).to.deep.equal([KEV_CVE]);
    expect((await list('type=iac')).items).to.deep.equal([]);
  });

  for (const [sort, before] of [
    ['severity', (a: Listed, b: Listed) => RANK[b.severity] - RANK[a.severity] || a.id - b.id],
    ['epss', (a: Listed, b: Listed) => (b.epss ?? -1) - (a.epss ?? -1) || a.id - b.id],
    ['first_seen', (a: Listed, b: Listed) => a.firstSeenAt.localeCompare(b.firstSeenAt) || a.id - b.id],
    ['deadline', (a: Listed, b: Listed) => ((x, y) => (x < y ? -1 : x > y ? 1 : a.id - b.id))(a.remediationDeadline ?? '\uffff', b.remediationDeadline ?? '\uffff')],
    ['id', (a: Listed, b: Listed) => a.id - b.id],
  ] as const) {
    it(`sort=${sort} holds across pages of 3 followed through Link (after and after_key), each issue once`, async () => {
      const whole = (await list(`sort=${sort}&limit=1000`)).items;
      expect(whole).to.have.length(14);
      expect(whole.map((i) => i.id)).to.deep.equal([...whole].sort(before).map((i) => i.id));
      const paged = await allPages(`sort=${sort}&limit=3`);
      expect(paged.map((i) => i.id)).to.deep.equal(whole.map((i) => i.id));
      const first = await list(`sort=${sort}&limit=3`);
      expect(first.link).to.match(sort === 'id' ? /after=\d+>/ : /after=\d+&after_key=[^&>]+>/);
      expect(first.link).to.include(`sort=${sort}`).and.include(`repository_id=${repo}`);
    });
  }

  it('a sorted page keeps its filters across pages too', async () => {
    const paged = await allPages('sort=severity&limit=2&kev=false&type=vulnerability');
    expect(paged).to.have.length(11);
    expect(paged.every((i) => i.kev === false && i.type === 'vulnerability')).to.equal(true);
    expect(paged.map((i) => RANK[i.severity])).to.deep.equal(paged.map((i) => RANK[i.severity]).sort((a, b) => b - a));
  });

  it('refuses with 400 (problem+json, naming what is wrong) a bad filter, sort or cursor', async () => {
    await refused('kev=maybe', /kev/);
    await refused('epss_min=1.5', /epss_min/);
    await refused('epss_min=-0.1', /epss_min/);
    await refused('epss_min=high', /epss_min/);
    await refused('type=bug', /type/);
    await refused('sort=name', /sort/);
    await refused('sort=id&after=3&after_key=2', /after_key goes with a sort other than id/);
    await refused('after_key=2', /after_key goes with a sort other than id/);
    await refused('sort=severity&after=3', /after and after_key go together/);
    await refused('sort=severity&after_key=3', /after and after_key go together/);
    await refused('sort=severity&after=3&after_key=5', /after_key must be a severity rank from 0 to 4/);
    await refused('sort=epss&after=3&after_key=2', /after_key must be a score from -1 to 1/);
    await refused('sort=epss&after=3&after_key=0x1', /after_key must be a score/);
    await refused('sort=first_seen&after=3&after_key=yesterday', /after_key must be an ISO-8601 UTC time/);
    await refused(`sort=first_seen&after=3&after_key=${'2'.repeat(41)}`, /after_key/);
    await refused('sort=first_seen&after=3&after_key=a%00b', /after_key/);
    await refused('sort=deadline&after=3', /after and after_key go together/);
    await refused('sort=deadline&after=3&after_key=2026-03-01T08:00:00Z', /after_key must be a remediation deadline as an ISO-8601 UTC time with milliseconds/);
    await refused('sort=deadline&after=3&after_key=soon', /after_key must be a remediation deadline/);
  });

  it('[S1.4.5-03] refuses with 400 (problem+json, naming owasp_category) a malformed OWASP category code, and writes nothing', async () => {
    const before = await v.eventCount();
    for (const code of ['A11:2021', 'A0:2021', 'A00:2021', 'A3', 'A03-2021', 'A3:21', 'A3:1999', 'B03:2021', '%20A3:2021', 'A%EF%BC%93:2021']) {
      await refused(`owasp_category=${code}`, /owasp_category must be an OWASP Top 10 category code such as A03:2021/);
    }
    // Empty, or longer than any code (A10:2021): the text limits of the field answer first.
    await refused('owasp_category=', /owasp_category/);
    await refused('owasp_category=OWASP-A03:2021', /owasp_category/);
    await refused('owasp_category=A03:20210', /owasp_category/);
    expect(await v.eventCount(), 'nothing written').to.equal(before);
    // A well-formed code no issue here carries is no error: nothing matches.
    expect((await list('owasp_category=A3:2017')).items).to.deep.equal([]);
  });
});
