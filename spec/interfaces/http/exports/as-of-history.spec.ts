import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { rebuildProjections } from '../../../../interfaces/cli/rebuild';
import { seedFindings } from '../../../support/backlog';
import { requireCorpus } from '../../../support/corpus';
import { epssCsv, EPSS_EXCERPT, gz, KEV_NEW, Mirror } from '../../../infrastructure/enrichment/mirror';
import { buildWorld, ExportWorld, fetchBytes } from './world';

const KEV_PATH = '/feeds/known_exploited_vulnerabilities.json';
const EPSS_PATH = '/feeds/epss_scores-current.csv.gz';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Every document whose bytes as of T are compared: a repository's, the project's, the solution's. */
const DOCUMENTS = [
  'repository:cyclonedx-vex', 'repository:openvex', 'repository:csaf-vex', 'repository:cyclonedx-sbom', 'repository:sarif',
  'project:cyclonedx-vex', 'project:openvex', 'project:csaf-vex', 'project:export', 'solution:cyclonedx-vex', 'solution:csaf-vex', 'solution:openvex',
];

describe('as_of answers the whole document from the log at the instant: membership, names, KEV and EPSS (issue #11) @db', function () {
  this.timeout(180_000);
  requireCorpus(this);
  let mirror: Mirror;
  let w: ExportWorld;
  let gone: number;
  let kevIssue: number;
  const kevDoc = JSON.parse(KEV_NEW().toString('utf8'));
  const excerpt = new Set(EPSS_EXCERPT().split('\n').slice(2).map((l) => l.split(',')[0]));
  // A CVE the newer KEV catalogue lists and the EPSS excerpt does not name: the first file gives it a score of ours.
  const CVE: string = kevDoc.vulnerabilities.map((v: { cveID: string }) => v.cveID).find((c: string) => !excerpt.has(c));
  const kevWithout = () => JSON.stringify({ ...kevDoc, catalogVersion: '2025.08.24', dateReleased: '2025-08-24T15:00:00.000Z', count: kevDoc.count - 1, vulnerabilities: kevDoc.vulnerabilities.filter((v: { cveID: string }) => v.cveID !== CVE) });
  const epssWith = (score: string, scoreDate: string) => gz(epssCsv({ rows: 100_000, scoreDate, edit: (l, i) => (i === 0 ? `${CVE},${score},0.99000` : l) }));

  const at = (document: string, asOf: string | null) => {
    const [scope, format] = document.split(':');
    const q = asOf ? `?as_of=${encodeURIComponent(asOf)}` : '';
    const id = scope === 'repository' ? w.repo : scope === 'project' ? w.projectId : w.solutionId;
    const path = format === 'export' ? `/projects/${id}/export` : `/${scope === 'repository' ? 'repositories' : `${scope}s`}/${id}/exports/${format}`;
    return fetchBytes(w.v, `${path}${q}`, w.admin);
  };
  const sync = async (feed: 'kev' | 'epss') => {
    const r = await w.v.request('POST', `/feeds/sync?feed=${feed}`, { token: w.admin });
    expect(r.status, r.text).to.equal(200);
    expect(r.body.outcomes[0].outcome, JSON.stringify(r.body.outcomes)).to.equal('accepted');
  };

  before(async () => {
    mirror = await new Mirror().start();
    w = await buildWorld({ VIGIL_KEV_URL: mirror.url(KEV_PATH), VIGIL_EPSS_URL: mirror.url(EPSS_PATH), VIGIL_KEV_ALLOW_PRIVATE: 'true', VIGIL_EPSS_ALLOW_PRIVATE: 'true' });
    // A third repository of the project, deleted after T: it was in the project then.
    gone = (await w.v.request('POST', '/repositories', { token: w.admin, body: { url: 'https://git.example/shop/legacy', projectId: w.projectId } })).body.id;
    await seedFindings(w.v, { kind: 'repository', id: gone }, [{ ruleId: 'CVE-2024-0009', identifier: 'CVE-2024-0009', path: 'pkg:npm/ms@0.7.0' }], { toolKey: 'scanner:vex-legacy' });
    await seedFindings(w.v, { kind: 'repository', id: w.repo }, [{ ruleId: CVE, identifier: CVE, path: 'pkg:npm/kev-lib@1.0.0' }], { toolKey: 'scanner:vex-kev' });
    kevIssue = (await w.v.request('GET', `/issues?repository_id=${w.repo}&limit=1000`, { token: w.admin })).body.find((i: { identifier: string }) => i.identifier === CVE).id;
    mirror.serve(KEV_PATH, { body: kevWithout(), headers: { 'content-type': 'application/json' } }).serve(EPSS_PATH, { body: epssWith('0.11111', '2026-09-29T12:00:00Z') });
    await sync('kev');
    await sync('epss');
    w.clock.advance(60_000);
  });
  after(async () => {
    await w?.v.stop();
    await mirror?.stop();
  });

  it('membership moved, a target renamed and deleted, KEV listing, EPSS score and remediation window changed after T: as_of=T answers the bytes taken at T (names, members, kev and epss of then), also after projections:rebuild', async () => {
    const T = w.clock.now().toISOString();
    w.clock.advance(60_000);
    const taken: Record<string, string> = {};
    for (const d of DOCUMENTS) {
      const r = await at(d, T);
      expect(r.status, `${d}: ${r.bytes.toString().slice(0, 300)}`).to.equal(200);
      taken[d] = sha(r.bytes);
    }
    const issueThen = (await w.v.request('GET', `/issues/${kevIssue}?as_of=${encodeURIComponent(T)}`, { token: w.admin })).body;
    expect(issueThen).to.include({ kev: false, epss: 0.11111, asOf: T });
    const exportThen = JSON.parse((await at('project:export', T)).bytes.toString());
    expect(exportThen.targets.map((t: { id: number; name: string }) => `${t.id}:${t.name}`)).to.deep.equal([`${w.repo}:checkout`, `${w.other}:cart`, `${gone}:legacy`]);
    expect(exportThen.issues.find((i: { id: number }) => i.id === kevIssue)).to.include({ kev: false, epss: 0.11111 });
    expect(exportThen.issues.find((i: { identifier: string }) => i.identifier === 'CVE-2024-0001')).to.include({ kev: false, epss: null });

    // After T: a target renamed, one moved to another project, one deleted, one registered into the project,
    // KEV now lists the CVE, EPSS scores it otherwise (the older generation is replaced), a decision taken.
    const elsewhere = (await w.v.request('POST', '/projects', { token: w.admin, body: { name: 'Elsewhere' } })).body.id;
    expect((await w.v.request('PATCH', `/repositories/${w.repo}`, { token: w.admin, body: { name: 'checkout-renamed' } })).status).to.equal(200);
    expect((await w.v.request('PATCH', `/repositories/${w.other}`, { token: w.admin, body: { projectId: elsewhere } })).status).to.equal(200);
    expect((await w.v.request('DELETE', `/repositories/${gone}`, { token: w.admin })).status).to.be.oneOf([200, 204]);
    const added = (await w.v.request('POST', '/repositories', { token: w.admin, body: { url: 'https://git.example/shop/new', projectId: w.projectId } })).body.id;
    await seedFindings(w.v, { kind: 'repository', id: added }, [{ ruleId: 'CVE-2024-0010', identifier: 'CVE-2024-0010', path: 'pkg:npm/debug@2.0.0' }], { toolKey: 'scanner:vex-new' });
    mirror.serve(KEV_PATH, { body: KEV_NEW() }).serve(EPSS_PATH, { body: epssWith('0.22222', '2026-09-30T12:00:00Z') });
    await sync('kev');
    await sync('epss');
    expect((await w.v.request('POST', `/issues/${kevIssue}/triage`, { token: w.admin, body: { status: 'affected' } })).status).to.equal(200);
    expect((await w.v.request('PATCH', '/settings', { token: w.admin, body: { remediation_days_high: 1 } })).status).to.equal(200);
    w.clock.advance(60_000);

    // Today's answers moved...
    const exportNow = JSON.parse((await at('project:export', null)).bytes.toString());
    expect(exportNow.targets.map((t: { id: number; name: string }) => `${t.id}:${t.name}`)).to.deep.equal([`${w.repo}:checkout-renamed`, `${added}:new`]);
    expect(exportNow.issues.find((i: { id: number }) => i.id === kevIssue)).to.include({ kev: true, epss: 0.22222 });
    const issueNow = (await w.v.request('GET', `/issues/${kevIssue}`, { token: w.admin })).body;
    expect(issueNow).to.include({ kev: true, epss: 0.22222 });
    expect(Date.parse(issueNow.remediationDeadline) - Date.parse(issueNow.firstSeenAt)).to.equal(86_400_000);
    expect(Date.parse(issueThen.remediationDeadline) - Date.parse(issueThen.firstSeenAt)).to.equal(30 * 86_400_000);
    // ...the answers as of T did not, byte for byte.
    for (const d of DOCUMENTS) expect(sha((await at(d, T)).bytes), d).to.equal(taken[d]);
    const issueAgain = (await w.v.request('GET', `/issues/${kevIssue}?as_of=${encodeURIComponent(T)}`, { token: w.admin })).body;
    expect(issueAgain).to.include({ kev: false, epss: 0.11111, triageStatus: 'under_review', remediationDeadline: issueThen.remediationDeadline });

    await w.v.services.projections.stop();
    await rebuildProjections(w.v.services.projections, [], () => undefined);
    for (const d of DOCUMENTS) expect(sha((await at(d, T)).bytes), `${d} after a rebuild`).to.equal(taken[d]);
    expect((await w.v.request('GET', `/issues/${kevIssue}?as_of=${encodeURIComponent(T)}`, { token: w.admin })).body).to.include({ kev: false, epss: 0.11111, triageStatus: 'under_review' });
    w.v.services.projections.start();
  });

  it('a scope that did not exist at as_of answers 404 (project, solution, repository, project export)', async () => {
    const before = '2026-01-01T00:00:00.000Z';
    for (const path of [`/projects/${w.projectId}/exports/csaf-vex`, `/solutions/${w.solutionId}/exports/csaf-vex`, `/repositories/${w.repo}/exports/sarif`, `/projects/${w.projectId}/export`]) {
      const r = await fetchBytes(w.v, `${path}?as_of=${encodeURIComponent(before)}`, w.admin);
      expect(r.status, path).to.equal(404);
    }
  });
});
