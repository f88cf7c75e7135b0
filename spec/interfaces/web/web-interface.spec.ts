import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { Secret, TOTP } from 'otpauth';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { buildWeb, WebManifest } from '../../../scripts/build-web';
import { launchBrowser } from '../../support/browser';
import { corpusPath, requireCorpus } from '../../support/corpus';
import { pathVariants, rawRequest } from '../../support/route-paths';
import { ADMIN, RunningVigil, startVigil } from '../../support/vigil';
import { axe, drive, Driven, open, settled, shoot, signIn } from './support';
import { tcpReceiver, until } from '../../support/siem-receivers';

// Used inside page.evaluate callbacks (the spec's tsconfig has no DOM library).
declare const sessionStorage: { length: number };
declare const document: any;

/**
 * The web interface of issue #16 end to end: Debian's Chromium (playwright-core) against a real
 * Vigil on loopback, the interface built as `npm run build` builds it. One browser for the suite;
 * each person has a context of their own.
 */
describe('web interface (Chromium against a real Vigil)', function () {
  this.timeout(60_000);
  let browser: Browser;
  let v: RunningVigil;
  let manifest: WebManifest;
  let admin: Driven;

  before(async function () {
    browser = await launchBrowser(this);
    manifest = await buildWeb();
    // ENCRYPTION_KEY: signed exports and second factors need it (as an installation using them would set it).
    v = await startVigil({ env: { ENCRYPTION_KEY: randomBytes(32).toString('base64'), VIGIL_VEX_AUTHOR: 'Example PSIRT', VIGIL_PUBLIC_URL: 'https://vigil.example.org/' } });
    admin = await drive(browser, v.url);
  });
  after(async function () {
    // A hang guard, not an assertion: in one CI run (two spec groups on two cores) closing Chromium and
    // then this Vigil took longer than the 60 s the browser's hooks are given, after every test had passed.
    this.timeout(180_000);
    await browser?.close();
    await v?.stop();
  });
  afterEach(function () {
    if (admin) expect(admin.errors, 'console errors').to.deep.equal([]);
  });

  it('serves the page and its built files on the API\'s port, with a policy that allows no inline script and nothing from elsewhere', async () => {
    const page = await fetch(`${v.url}/`);
    expect(page.status).to.equal(200);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).to.include("script-src 'self'").and.include("default-src 'none'").and.not.include('unsafe-inline');
    const html = await page.text();
    expect(html).to.not.match(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).to.include(`/ui/${manifest.script}`);
    const script = await fetch(`${v.url}/ui/${manifest.script}`);
    expect(script.status).to.equal(200);
    expect(script.headers.get('content-type')).to.match(/^text\/javascript/);
    expect(script.headers.get('cache-control')).to.include('immutable');
  });

  it('declares only its own paths: any other spelling, file or method answers 404 or 405 like the API', async () => {
    const asset = `/ui/${manifest.script}`;
    const paths = ['/index.html', '/ui/', '/ui/manifest.json', '/targets', '/favicon.ico', '//', '/%2F', '/.', ...pathVariants(asset, [true, false]).map((x) => x.path)];
    const wrong: string[] = [];
    for (const path of paths) {
      const r = await rawRequest(v.url, 'GET', path);
      if (r.status !== 404) wrong.push(`${path}: ${r.status}`);
    }
    expect(wrong).to.deep.equal([]);
    expect((await rawRequest(v.url, 'POST', '/')).status).to.equal(404);
    expect((await rawRequest(v.url, 'HEAD', asset)).status).to.equal(200);
  });

  it('signs in with a password, shows the layout with its navigation, and signs out', async () => {
    const p = admin.page;
    await p.goto('/');
    await p.getByLabel('Username').waitFor();
    expect(await axe(p)).to.deep.equal([]);
    await shoot(p, 'sign-in');
    await p.getByLabel('Username').fill(ADMIN.username);
    await p.getByLabel('Password').fill('not the password');
    admin.expectErrors(/401/);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('alert').waitFor();
    expect(await p.getByRole('alert').textContent()).to.include('not right');
    await signIn(admin, ADMIN.username, ADMIN.password);
    const nav = await p.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
    expect(nav).to.include.members(['Estate', 'Targets', 'Backlog', 'Administration', 'Audit log']);
    expect(await axe(p)).to.deep.equal([]);
    await shoot(p, 'estate');
    await p.getByRole('button', { name: 'Sign out' }).click();
    await p.getByLabel('Username').waitFor();
    expect(await p.evaluate(() => sessionStorage.length)).to.equal(0);
    await signIn(admin, ADMIN.username, ADMIN.password);
    await open(admin, '/account', 'Your account');
  });

  let repositoryId: number;

  describe('a repository from registration to the gate, with four-eyes triage between two accounts', function () {
    let lead: Driven;
    let leadAccount: { id: number; token: string; username: string };
    before(function () { requireCorpus(this.test!.parent!); });

    it('[S1.4.5-01] an administrator registers a repository from the targets page', async () => {
      const p = admin.page;
      await open(admin, '/targets', 'Targets');
      await p.getByLabel('Repository URL').fill('https://git.example/shop/web-app');
      await p.getByLabel('Branch').fill('main');
      await p.getByRole('button', { name: 'Register' }).click();
      await settled(admin, 'web-app');
      repositoryId = Number(/repositories\/(\d+)/.exec(p.url())![1]);
      expect((await v.request('GET', `/repositories/${repositoryId}`, { token: await v.signIn() })).body.url).to.equal('https://git.example/shop/web-app');
      await shoot(p, 'repository');
      await p.getByRole('button', { name: 'Scan now' }).click();
      await p.getByText(/Scan \d+ requested/).waitFor();
      await p.getByRole('link', { name: 'Follow it' }).click();
      const row = p.getByRole('table', { name: 'Scans, newest first' }).locator('tbody tr').first();
      await row.waitFor();
      expect(await row.textContent()).to.match(/pending|scanning|failed/);
      await shoot(p, 'repository-scans');
    });

    it('shows a SARIF import made through the API in the repository\'s imports and backlog', async () => {
      const token = await v.signIn();
      const key = await v.key(token, { name: 'pipeline', scopes: ['sarif_import', 'read'] });
      const governor = await v.account(['platform_governor']);
      const source = await v.request('POST', '/sarif-sources', { token: governor.token, body: { slug: 'ci', name: 'CI', api_key_id: key.id, repository_id: repositoryId, kinds: ['sarif'], tools: ['Semgrep OSS'] } });
      expect(source.status, source.text).to.equal(201);
      const imported = await v.request('POST', `/repositories/${repositoryId}/sarif-imports`, { apiKey: key.key, raw: fs.readFileSync(corpusPath('sarif', 'semgrep', 'semgrep-1.69.0.sarif')), contentType: 'application/sarif+json' });
      expect(imported.status, imported.text).to.equal(201);
      const p = admin.page;
      await open(admin, `/repositories/${repositoryId}?tab=imports`, 'web-app');
      const sarifTable = p.getByRole('table', { name: 'SARIF imports' });
      expect(await sarifTable.getByRole('row').nth(1).textContent()).to.include('Semgrep OSS 1.69.0').and.include(String(imported.body.createdCount));
      await shoot(p, 'imports');
      await open(admin, `/issues?repository_id=${repositoryId}&status=open`, `Backlog of repository ${repositoryId}`);
      await p.getByLabel('Per page').selectOption('25');
      await p.getByRole('button', { name: 'Apply' }).click();
      const rows = p.getByRole('table', { name: 'Issues' }).locator('tbody tr');
      const firstIssue = () => rows.first().locator('td:nth-child(2)').textContent();
      await p.waitForFunction(() => (document as any).querySelectorAll('table tbody tr').length === 25); // the first page of 25
      const first = await firstIssue();
      await p.getByRole('link', { name: 'Next page' }).click();
      await p.waitForFunction((was) => (document as any).querySelector('table tbody tr td:nth-child(2)')?.textContent !== was, first);
      expect(p.url()).to.include('after=');
      expect(await rows.count()).to.equal(imported.body.createdCount - 25);
      await p.getByLabel('Severity').selectOption('medium');
      await p.getByRole('button', { name: 'Apply' }).click();
      await p.waitForFunction(() => [...(document as any).querySelectorAll('table tbody tr td:nth-child(3)')].every((td: any) => td.textContent === 'medium'));
      const severities = await rows.locator('td:nth-child(3)').allTextContents();
      expect(severities.length).to.be.greaterThan(0);
      expect(new Set(severities)).to.deep.equal(new Set(['medium']));
      expect(await axe(p)).to.deep.equal([]);
      await shoot(p, 'backlog');
    });

    it('orders the backlog by severity across pages (the API\'s order; the next page\'s address carries after and after_key) and filters by type, KEV and EPSS', async () => {
      const p = admin.page;
      const rank = (s: string) => ['low', 'medium', 'high', 'critical'].indexOf(s);
      const severities = () => p.getByRole('table', { name: 'Issues' }).locator('tbody tr td:nth-child(3)').allTextContents();
      await open(admin, `/issues?repository_id=${repositoryId}&status=open&limit=25`, `Backlog of repository ${repositoryId}`);
      await p.getByLabel('Order').selectOption('severity');
      await p.getByRole('button', { name: 'Apply' }).click();
      await p.waitForFunction(() => (document as any).body.dataset.route.includes('sort=severity'));
      await settled(admin, `Backlog of repository ${repositoryId}`);
      const first = (await severities()).map(rank);
      expect(first).to.have.length(25);
      expect(first).to.deep.equal([...first].sort((a, b) => b - a));
      await p.getByRole('link', { name: 'Next page' }).click();
      await p.waitForFunction(() => (document as any).body.dataset.route.includes('after_key='));
      await settled(admin, `Backlog of repository ${repositoryId}`);
      const second = (await severities()).map(rank);
      expect(second.length).to.be.greaterThan(0);
      expect(second).to.deep.equal([...second].sort((a, b) => b - a));
      expect(Math.max(...second)).to.be.at.most(Math.min(...first));
      await shoot(p, 'backlog-by-severity');
      await p.getByLabel('Type').selectOption('secret');
      await p.getByRole('button', { name: 'Apply' }).click();
      await p.getByText('No issue matches.').waitFor();
      // The other choices stay as the address says (the order among them), and paging starts again.
      expect(p.url()).to.include('type=secret').and.include('sort=severity').and.include('limit=25').and.not.include('after=');
      await p.getByLabel('Type').selectOption('imported');
      await p.getByLabel('KEV').selectOption('true');
      await p.getByLabel('EPSS at least').fill('0.5');
      await p.getByRole('button', { name: 'Apply' }).click();
      await p.waitForFunction(() => (document as any).body.dataset.route.includes('epss_min=0.5'));
      // No feed was synchronised here: KEV and EPSS are unknown, and an unknown state matches no such filter.
      await p.getByText('No issue matches.').waitFor();
      expect(await axe(p)).to.deep.equal([]);
    });

    it('[S1.4.5-03] filters the backlog by OWASP category (Semgrep\'s rule tags; typed a3:2021), in remediation deadline order, and the issue page lists the categories as links', async () => {
      const p = admin.page;
      const want = (await v.request('GET', `/issues?repository_id=${repositoryId}&owasp_category=A03:2021&sort=deadline&limit=25`, { token: await v.signIn() })).body as Array<{ id: number; owaspCategories: string[] }>;
      expect(want.length).to.be.greaterThan(1);
      await open(admin, `/issues?repository_id=${repositoryId}&limit=25`, `Backlog of repository ${repositoryId}`);
      // The filters form is the one the previous test filled (the page stays mounted): clear its choices.
      await p.getByLabel('Type').selectOption('');
      await p.getByLabel('KEV').selectOption('');
      await p.getByLabel('EPSS at least').fill('');
      await p.getByLabel('OWASP category').fill('a3:2021');
      await p.getByLabel('Order').selectOption('deadline');
      await p.getByRole('button', { name: 'Apply' }).click();
      await p.waitForFunction(() => (document as any).body.dataset.route.includes('sort=deadline') && (document as any).body.dataset.route.includes('owasp_category=a3'));
      await settled(admin, `Backlog of repository ${repositoryId}`);
      const ids = async () => (await p.getByRole('table', { name: 'Issues' }).locator('tbody tr td:nth-child(2)').allTextContents()).map((t) => Number(t.replace('#', '')));
      expect(await ids()).to.deep.equal(want.map((i) => i.id));
      expect(await axe(p)).to.deep.equal([]);
      await shoot(p, 'backlog-by-owasp-category');
      await p.getByRole('link', { name: `#${want[0].id}` }).click();
      await settled(admin, `Issue #${want[0].id}`);
      const facts = p.locator('dl.facts').first();
      expect(await facts.textContent()).to.include('OWASP Top 10');
      for (const c of want[0].owaspCategories) await facts.getByRole('link', { name: c }).waitFor();
      await facts.getByRole('link', { name: 'A03:2021' }).click();
      await p.waitForFunction(() => (document as any).body.dataset.route.includes('owasp_category=A03'));
      await settled(admin, 'Backlog');
      expect(await ids()).to.include.members(want.map((i) => i.id));
    });

    it('[S1.2.3-03] under four-eyes the administrator asks for not_affected, a security lead approves it in another browser context', async () => {
      const p = admin.page;
      await open(admin, '/admin/settings', 'Administration: Settings');
      await p.getByLabel('triage four eyes').check();
      await p.getByRole('button', { name: 'Save settings' }).click();
      await p.getByText('Saved.').waitFor();
      expect((await v.request('GET', '/settings', { token: await v.signIn() })).body.triage_four_eyes).to.equal(true);
      const issueId = (await v.request('GET', `/issues?repository_id=${repositoryId}&limit=1`, { token: await v.signIn() })).body[0].id;
      await open(admin, `/issues/${issueId}`, `Issue #${issueId}`);
      expect(await p.locator('dl.facts').first().textContent()).to.include('Remediation deadline');
      await p.getByLabel('Decision', { exact: true }).selectOption('not_affected');
      await p.getByLabel('Justification').selectOption('code_not_reachable');
      await p.getByLabel('Comment').first().fill('Only reached from the build script.');
      await p.getByRole('button', { name: 'Record decision' }).click();
      await p.getByRole('heading', { name: /Four-eyes request: not affected/ }).waitFor();
      expect(await p.getByText('You asked for this decision').count()).to.equal(1);
      await shoot(p, 'issue-requested');

      leadAccount = await v.account(['security_lead'], 'lead');
      // The administrator puts the lead in a team granted the repository, from Administration.
      await open(admin, '/admin/teams', 'Administration: Teams and grants');
      await p.getByLabel('Team name').fill('AppSec');
      await p.getByRole('button', { name: 'Create team' }).click();
      await p.getByLabel('Account to add to AppSec').selectOption({ label: 'lead' });
      await p.getByRole('button', { name: 'Add member' }).click();
      await p.getByRole('button', { name: 'Remove lead from AppSec' }).waitFor();
      await p.getByLabel('Grant to AppSec').selectOption(`repository:${repositoryId}`);
      await p.getByRole('button', { name: 'Grant', exact: true }).click();
      await p.getByRole('button', { name: 'Withdraw repository web-app from AppSec' }).waitFor();
      await shoot(p, 'teams');
      lead = await drive(browser, v.url);
      await signIn(lead, 'lead', 'a-long-enough-password');
      await open(lead, `/issues/${issueId}`, `Issue #${issueId}`);
      await lead.page.getByRole('button', { name: 'Approve not affected' }).click();
      await lead.page.getByRole('heading', { name: 'Decide' }).waitFor();
      await lead.page.waitForFunction(() => !document.querySelector('#four-eyes'));
      const issue = await v.request('GET', `/issues/${issueId}`, { token: leadAccount.token });
      expect(issue.body).to.include({ triageStatus: 'not_affected', justification: 'code_not_reachable', triageRequestedStatus: null });
      expect(await lead.page.getByRole('table', { name: /Every decision/ }).textContent()).to.include('Only reached from the build script.');
      expect(lead.errors).to.deep.equal([]);
      await shoot(lead.page, 'issue-approved');
    });

    it('an If-Match conflict is said plainly and the issue shown afresh', async () => {
      const issueId = (await v.request('GET', `/issues?repository_id=${repositoryId}&limit=2`, { token: await v.signIn() })).body[1].id;
      const p = admin.page;
      await open(admin, `/issues/${issueId}`, `Issue #${issueId}`);
      const meanwhile = await v.request('POST', `/issues/${issueId}/triage`, { token: leadAccount.token, body: { status: 'affected', comment: 'meanwhile' } });
      expect(meanwhile.status, meanwhile.text).to.equal(200);
      await p.getByLabel('Decision', { exact: true }).selectOption('under_review');
      admin.expectErrors(/409/);
      await p.getByRole('button', { name: 'Record decision' }).click();
      const alert = p.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).to.include('409').and.include('changed after you read it').and.include('shown below as it is now');
      await p.getByText('meanwhile').first().waitFor();
      await shoot(p, 'issue-conflict');
    });

    it('[S1.4.5-02] decides several issues at once from the backlog (requested under four-eyes)', async () => {
      const p = admin.page;
      await open(admin, `/issues?repository_id=${repositoryId}&triage_status=under_review`, `Backlog of repository ${repositoryId}`);
      const boxes = p.getByRole('checkbox', { name: /^Select issue/ });
      await boxes.nth(0).check();
      await boxes.nth(1).check();
      await p.getByLabel('Decision', { exact: true }).selectOption('will_not_fix');
      await p.getByLabel('Review in (days)').fill('30');
      await p.getByRole('button', { name: 'Decide for 2 issues' }).click();
      await p.getByText('2 decided, 0 refused.').waitFor();
      await open(admin, '/exceptions?state=requested', 'Exceptions');
      expect(await p.getByRole('table', { name: 'Exceptions on open issues' }).locator('tbody tr').count()).to.be.at.least(2);
      await shoot(p, 'exceptions');
    });

    it('revokes a granted exception from the exceptions page: the issue goes back to under review', async () => {
      const p = admin.page;
      await open(admin, '/exceptions?state=granted', 'Exceptions');
      const table = p.getByRole('table', { name: 'Exceptions on open issues' });
      const first = table.locator('tbody tr').first();
      const issueId = Number(/#(\d+)/.exec((await first.locator('td').first().textContent())!)![1]);
      await p.getByLabel(`Action on #${issueId}`).selectOption('revoke');
      await first.getByRole('button', { name: 'Review' }).click();
      await p.waitForFunction((id) => ![...document.querySelectorAll('table tbody tr td:first-child')].some((td: any) => td.textContent === `#${id}`), issueId);
      const issue = await v.request('GET', `/issues/${issueId}`, { token: await v.signIn() });
      expect(issue.body.triageStatus).to.equal('under_review');
    });

    it('asks the gate from the repository page and shows the verdict in the register', async () => {
      const p = admin.page;
      await open(admin, `/repositories/${repositoryId}?tab=verdicts`, 'web-app');
      await p.getByRole('button', { name: 'Ask the gate now' }).click();
      const row = p.getByRole('table', { name: 'Gate verdicts, newest first' }).locator('tbody tr').first();
      await row.waitFor();
      expect(await row.textContent()).to.include('failed');
      await open(admin, '/gate', 'Gate verdicts');
      expect(await p.getByRole('table', { name: 'Gate verdicts, newest first' }).locator('tbody tr').count()).to.equal(1);
      await shoot(p, 'gate');
      await lead?.context.close();
    });

    it('downloads a signed CycloneDX VEX of the repository, showing progress, its digest and signature', async () => {
      const p = admin.page;
      await open(admin, `/repositories/${repositoryId}?tab=exports`, 'web-app');
      const [file] = await Promise.all([p.waitForEvent('download'), p.getByRole('button', { name: 'Download CycloneDX VEX' }).click()]);
      const bytes = fs.readFileSync((await file.path())!);
      const vex = JSON.parse(bytes.toString('utf8'));
      expect(vex.bomFormat).to.equal('CycloneDX');
      const notice = p.locator('.notice');
      await notice.waitFor();
      expect(await notice.textContent()).to.include(file.suggestedFilename()).and.include(createHash('sha256').update(bytes).digest('hex'));
      await shoot(p, 'export');
    });

    it('[S1.4.3-01] uploads a SARIF log from the imports page with an integration key (X-API-Key, no session), showing its progress to the end, then its issues; a wrong key or scope is refused with the problem\'s detail', async () => {
      const token = await v.signIn();
      const repo = await v.request('POST', '/repositories', { token, body: { url: 'https://git.example/shop/upload-app', scanManualOnly: true } });
      expect(repo.status, repo.text).to.equal(201);
      const key = await v.key(token, { name: 'upload', scopes: ['sarif_import'] });
      const readOnly = await v.key(token, { name: 'upload-read', scopes: ['read'] });
      const governor = await v.account(['platform_governor']);
      const source = await v.request('POST', '/sarif-sources', { token: governor.token, body: { slug: 'upload', name: 'Upload', api_key_id: key.id, repository_id: repo.body.id, kinds: ['sarif'], tools: ['Semgrep OSS'] } });
      expect(source.status, source.text).to.equal(201);
      const file = corpusPath('sarif', 'semgrep', 'semgrep-1.69.0.sarif');
      const p = admin.page;
      await open(admin, `/repositories/${repo.body.id}?tab=imports`, 'upload-app');
      const keyInput = p.getByLabel('Integration key');
      expect(await keyInput.getAttribute('type')).to.equal('password');
      expect(await keyInput.getAttribute('autocomplete')).to.equal('off');
      await p.getByLabel('Kind of report').selectOption('sarif');
      await p.getByLabel('Report file').setInputFiles(file);
      const refusal = async (secret: string, status: number, detail: RegExp) => {
        await keyInput.fill(secret);
        admin.expectErrors(new RegExp(String(status)));
        await p.getByRole('button', { name: 'Upload' }).click();
        const alert = p.getByRole('alert');
        await alert.waitFor();
        expect(await alert.textContent()).to.include(String(status)).and.match(detail);
        expect(await p.getByRole('status').last().textContent()).to.equal('The upload was refused.');
      };
      await refusal('vk_this-is-not-a-key', 401, /A valid credential is required\./);
      await refusal(readOnly.key, 403, /sarif_import/);
      // The key's refusal is not the session's: the person is still signed in, on the same page.
      await settled(admin, 'upload-app');
      expect((await v.request('GET', `/repositories/${repo.body.id}/sarif-imports`, { token })).body).to.deep.equal([]);

      await keyInput.fill(key.key);
      const sent = p.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/repositories/${repo.body.id}/sarif-imports`));
      await p.getByRole('button', { name: 'Upload' }).click();
      const headers = (await sent).headers();
      expect(headers['x-api-key']).to.equal(key.key);
      expect(headers.authorization, 'no session token on an import').to.equal(undefined);
      expect(headers['content-type']).to.equal('application/sarif+json');
      const status = p.locator('.upload [role=status]');
      await p.waitForFunction(() => /^Imported /.test(document.querySelector('.upload [role=status]')?.textContent ?? ''), undefined, { timeout: 30_000 });
      const bar = await p.locator('#upload-progress').evaluate((el: any) => ({ value: el.value, max: el.max }));
      expect(bar.max).to.equal(fs.statSync(file).size);
      expect(bar.value, 'progress reached the end').to.equal(bar.max);
      expect(await p.getByText('Upload progress').count()).to.equal(1);
      const imports = (await v.request('GET', `/repositories/${repo.body.id}/sarif-imports`, { token })).body;
      expect(imports).to.have.length(1);
      expect(await status.textContent()).to.include(`semgrep-1.69.0.sarif`).and.include(`${imports[0].createdCount} created`);
      // The history below the form was read again: the import is there without a reload.
      const row = p.getByRole('table', { name: 'SARIF imports' }).getByRole('row').nth(1);
      await row.waitFor();
      expect(await row.textContent()).to.include('Semgrep OSS 1.69.0').and.include(String(imports[0].createdCount));
      // The key was held by the form alone: nothing of it in the page's storage.
      expect(await p.evaluate(() => JSON.stringify({ ...(globalThis as any).sessionStorage, ...(globalThis as any).localStorage }))).to.not.include(key.key);
      expect(await axe(p)).to.deep.equal([]);
      await shoot(p, 'import-upload');
      await open(admin, `/issues?repository_id=${repo.body.id}&status=open&limit=25`, `Backlog of repository ${repo.body.id}`);
      expect(await p.getByRole('table', { name: 'Issues' }).locator('tbody tr').count()).to.equal(Math.min(25, imports[0].createdCount));
      expect(imports[0].createdCount).to.be.greaterThan(0);
    });

    it('uploads a JUnit report, a Cobertura coverage report and a CycloneDX SBOM through the same form, each with its route and media type, and shows each in the history', async () => {
      const token = await v.signIn();
      const repo = (await v.request('GET', '/repositories?limit=500', { token })).body.find((r: { name: string }) => r.name === 'upload-app');
      const key = await v.key(token, { name: 'upload-reports', scopes: ['report_import'] });
      const governor = await v.account(['platform_governor']);
      const source = await v.request('POST', '/sarif-sources', { token: governor.token, body: { slug: 'upload-reports', name: 'Reports', api_key_id: key.id, repository_id: repo.id, kinds: ['coverage', 'test_report', 'sbom'] } });
      expect(source.status, source.text).to.equal(201);
      const p = admin.page;
      await open(admin, `/repositories/${repo.id}?tab=imports`, 'upload-app');
      const cases: Array<{ kind: string; file: string[]; route: string; contentType: string; table: string; said: RegExp }> = [
        { kind: 'junit', file: ['junit', 'ant-junit__single-suite.xml'], route: 'test-report-imports', contentType: 'application/xml', table: 'Test-report imports', said: /test-report import \d+: .*\d+ tests/ },
        { kind: 'cobertura', file: ['coverage', 'cobertura', 'cobertura-action__istanbul.cobertura.xml'], route: 'coverage-imports?format=cobertura', contentType: 'application/xml', table: 'Coverage imports', said: /coverage import \d+: \d+ of \d+ lines covered/ },
        { kind: 'cyclonedx', file: ['sbom', 'cyclonedx-1.5', 'cdxgen-9.10.2__java.json'], route: 'build-sbom-imports', contentType: 'application/vnd.cyclonedx+json', table: 'Build SBOM imports', said: /build SBOM import \d+: \d+ components \(CycloneDX 1\.5\)/ },
      ];
      for (const c of cases) {
        await p.getByLabel('Kind of report').selectOption(c.kind);
        await p.getByLabel('Report file').setInputFiles(corpusPath(...c.file));
        await p.getByLabel('Integration key').fill(key.key);
        const sent = p.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith(`/repositories/${repo.id}/${c.route}`));
        await p.getByRole('button', { name: 'Upload' }).click();
        const request = await sent;
        expect(request.headers()['content-type'], c.kind).to.equal(c.contentType);
        expect(request.headers()['x-api-key']).to.equal(key.key);
        await p.waitForFunction(() => /^Imported /.test(document.querySelector('.upload [role=status]')?.textContent ?? ''), undefined, { timeout: 30_000 });
        expect(await p.locator('.upload [role=status]').textContent(), c.kind).to.match(c.said);
        await p.getByRole('table', { name: c.table }).getByRole('row').nth(1).waitFor();
      }
      expect(await axe(p)).to.deep.equal([]);
      await shoot(p, 'import-upload-reports');
    });

  });

  describe('agents, the SIEM export and the SCIM token (administration)', () => {
    it('an administrator sees an agent that said hello, sets its limit and pins a generated signing key whose private half is shown once', async () => {
      const token = await v.signIn();
      const key = await v.key(token, { name: 'agent-1', scopes: ['agent'] });
      const hello = await v.request('POST', '/agent/hello', { apiKey: key.key, body: { version: '0.12.0', labels: ['linux', 'docker'] } });
      expect(hello.status, hello.text).to.equal(200);
      const agentId = hello.body.agentId as number;
      const p = admin.page;
      await open(admin, '/admin/agents', 'Administration: Agents');
      const row = p.getByRole('table', { name: 'Agents' }).locator('tbody tr').first();
      expect(await row.textContent()).to.include('0.12.0').and.include('linux');
      await p.getByLabel(`Concurrent scans of agent ${agentId}`).fill('3');
      await p.getByRole('button', { name: 'Set limit' }).click();
      await p.waitForFunction(() => (document as any).querySelector('table tbody tr')?.textContent.includes('of 3'));
      await p.getByLabel(`Public key of agent ${agentId}`).fill('generate');
      await p.getByRole('button', { name: 'Pin signing key' }).click();
      const secret = p.locator('.secret code');
      await secret.waitFor();
      const privateKey = (await secret.textContent())!;
      expect(privateKey.length).to.be.greaterThan(20);
      await shoot(p, 'admin-agents');
      await p.getByRole('button', { name: 'I have copied it' }).click();
      expect(await p.content()).to.not.include(privateKey);
      const listed = (await v.request('GET', '/admin/agents', { token })).body.find((a: { id: number }) => a.id === agentId);
      expect(listed.maxConcurrent).to.equal(3);
      expect(listed.signingKey).to.be.a('string');
      await p.getByRole('button', { name: `Remove signing key of agent ${agentId}` }).waitFor();
      expect(await axe(p)).to.deep.equal([]);
    });

    it('an administrator points the SIEM export at a syslog collector, sends a test event that arrives, and reads the outbox', async () => {
      const token = await v.signIn();
      expect((await v.request('PATCH', '/settings', { token, body: { siem_allow_private_destination: true } })).status).to.equal(200);
      const collector = await tcpReceiver();
      try {
        const p = admin.page;
        await open(admin, '/admin/siem', 'Administration: SIEM');
        await p.getByLabel('Send security events').check();
        await p.getByLabel('Protocol').selectOption('syslog_tcp');
        await p.getByLabel('Endpoint').fill(collector.endpoint);
        await p.getByLabel('Minimum severity').selectOption('low');
        await p.getByRole('button', { name: 'Save SIEM export' }).click();
        await p.getByText('Saved.').waitFor();
        expect((await v.request('GET', '/siem/config', { token })).body).to.include({ enabled: true, protocol: 'syslog_tcp', endpoint: collector.endpoint, minimumSeverity: 'low' });
        await p.getByRole('button', { name: 'Send a test event' }).click();
        await p.getByText('The test event (VGL-SEC-999) arrived.').waitFor();
        await until(() => collector.frames.some((f) => f.includes('VGL-SEC-999')));
        await p.getByRole('heading', { name: 'Outbox' }).waitFor();
        await p.getByRole('table', { name: /Security events queued/ }).or(p.getByText('Nothing queued.')).waitFor();
        expect(await axe(p)).to.deep.equal([]);
        await shoot(p, 'admin-siem');
        // Switching off again, so the rest of the suite sends nothing to a closed collector.
        await p.getByLabel('Send security events').uncheck();
        await p.getByRole('button', { name: 'Save SIEM export' }).click();
        await p.getByText('Saved.').waitFor();
      } finally {
        await collector.close();
      }
    });

    it('an administrator issues the SCIM token, shown once and working against /scim/v2, and revokes it', async () => {
      const p = admin.page;
      await open(admin, '/admin/scim', 'Administration: SCIM token');
      await p.getByRole('button', { name: 'Issue a SCIM token' }).click();
      const secret = p.locator('.secret code');
      await secret.waitFor();
      const scim = (await secret.textContent())!;
      const users = () => fetch(`${v.url}/scim/v2/Users`, { headers: { authorization: `Bearer ${scim}` } });
      expect((await users()).status).to.equal(200);
      await shoot(p, 'admin-scim');
      await p.getByRole('button', { name: 'I have copied it' }).click();
      expect(await p.content()).to.not.include(scim);
      await p.getByRole('button', { name: 'Revoke the SCIM token' }).click();
      await p.getByText(/Revoked: SCIM calls are refused/).waitFor();
      expect((await users()).status).to.equal(401);
      expect(await axe(p)).to.deep.equal([]);
    });
  });

  /** The pages of the main navigation and of Administration a person is shown (read at a wide window, where the navigation shows), with the repository's tabs, an issue and the account. */
  async function routesOf(d: Driven): Promise<Array<[string, string]>> {
    const p = d.page;
    const nav = await p.getByRole('navigation', { name: 'Main' }).getByRole('link').evaluateAll((links) => links.map((a) => [(a as any).textContent, (a as any).getAttribute('href')]));
    const routes: Array<[string, string]> = [...nav.map(([label, h]) => [label, String(h).slice(1)] as [string, string]),
      ['Repository', `/repositories/${repositoryId}`], ['Repository imports', `/repositories/${repositoryId}?tab=imports`], ['Repository scans', `/repositories/${repositoryId}?tab=scans`],
      ['Repository verdicts', `/repositories/${repositoryId}?tab=verdicts`], ['Repository exports', `/repositories/${repositoryId}?tab=exports`], ['Issue', '/issues/1'], ['Account', '/account']];
    await open(d, '/admin', /^Administration/);
    const tabs = await p.locator('ul.tabs a').evaluateAll((links) => links.map((a) => [(a as any).textContent, (a as any).getAttribute('href')]));
    routes.push(...tabs.map(([label, h]) => [`Administration ${label}`, String(h).slice(1)] as [string, string]));
    return routes;
  }

  describe('each role, every page', function () {
    /** Every page a role is shown, opened one by one. */
    async function visitAll(d: Driven, role: string, check: { axe?: boolean; photograph?: boolean }): Promise<string[]> {
      const p = d.page;
      const routes = await routesOf(d);
      const violations: string[] = [];
      for (const [label, route] of routes) {
        await open(d, route, /./);
        if (check.axe) violations.push(...(await axe(p)).map((x) => `${label}: ${x}`));
        if (check.photograph) await shoot(p, `${role}-${label.toLowerCase()}`);
      }
      return violations;
    }

    it('every page opens for the administrator with no console error and no serious axe-core violation; screenshots of each', async function () {
      this.timeout(120_000);
      expect(await visitAll(admin, 'administrator', { axe: true, photograph: true })).to.deep.equal([]);
    });

    for (const role of ['ciso', 'security_lead', 'platform_governor', 'auditor', 'writer', 'reader']) {
      it(`${role === 'auditor' ? 'an' : 'a'} ${role.replace('_', ' ')} opens every page shown to them without a console error nor a serious axe-core violation, and is offered only what the role may do`, async function () {
        this.timeout(120_000);
        const adminToken = await v.signIn();
        const account = await v.account([role], `${role.replace('_', '-')}-1`);
        const teams = (await v.request('GET', '/teams', { token: adminToken })).body;
        await v.request('POST', `/teams/${teams[0].id}/members`, { token: adminToken, body: { accountId: account.id } });
        const d = await drive(browser, v.url);
        try {
          await signIn(d, account.username, 'a-long-enough-password');
          const nav = await d.page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();
          expect(nav.includes('Audit log'), 'audit log offered').to.equal(['ciso', 'auditor'].includes(role));
          expect(await visitAll(d, role, { axe: true })).to.deep.equal([]);
          await open(d, '/targets', 'Targets');
          expect(await d.page.getByRole('button', { name: 'Register' }).count(), 'register offered').to.equal(['ciso', 'security_lead', 'writer'].includes(role) ? 1 : 0);
          await open(d, `/issues?repository_id=${repositoryId}`, `Backlog of repository ${repositoryId}`);
          expect(await d.page.getByRole('checkbox', { name: /^Select issue/ }).count() > 0, 'bulk triage offered').to.equal(['ciso', 'security_lead', 'writer'].includes(role));
          await open(d, `/repositories/${repositoryId}?tab=verdicts`, 'web-app');
          expect(await d.page.getByRole('button', { name: 'Ask the gate now' }).count(), 'gate offered').to.equal(['ciso', 'security_lead', 'writer'].includes(role) ? 1 : 0);
          await open(d, '/admin/sources', /^Administration/);
          expect(await d.page.getByRole('button', { name: 'Declare source' }).count(), 'declaring sources offered').to.equal(role === 'platform_governor' ? 1 : 0);
          const tabs = await d.page.locator('ul.tabs a').allTextContents();
          expect(tabs.includes('SIEM'), 'SIEM offered').to.equal(role === 'security_lead');
          expect(tabs.filter((t) => t === 'Agents' || t === 'SCIM token'), 'agents and SCIM are the administrator\'s').to.deep.equal([]);
          if (role === 'security_lead') {
            await open(d, '/admin/siem', 'Administration: SIEM');
            expect(await d.page.getByRole('button', { name: 'Save SIEM export' }).count()).to.equal(1);
            expect(await d.page.getByRole('heading', { name: 'Outbox' }).count(), 'the outbox is the administrator\'s').to.equal(0);
          }
          expect(d.errors).to.deep.equal([]);
        } finally {
          await d.context.close();
        }
      });
    }
  });

  describe('keyboard and window sizes', () => {
    it('a page takes the focus on its heading; the keyboard reaches the navigation and "Skip to content", which returns to the page; focus is visible', async () => {
      const p = admin.page;
      await open(admin, '/targets', 'Targets');
      expect(await p.evaluate(() => (document as any).activeElement?.id)).to.equal('page-title');
      const seen: string[] = [];
      for (let i = 0; i < 20 && seen[seen.length - 1] !== 'Skip to content'; i++) {
        await p.keyboard.press('Shift+Tab');
        seen.push(await p.evaluate(() => (document as any).activeElement?.textContent));
      }
      expect(seen).to.include.members(['Sign out', 'Audit log', 'Targets', 'Estate', 'Skip to content']);
      await p.keyboard.press('Enter');
      expect(await p.evaluate(() => (document as any).activeElement?.id)).to.equal('main');
      await p.keyboard.press('Tab');
      const outline = await p.evaluate(() => { const el = (document as any).activeElement; return (globalThis as any).getComputedStyle(el).outlineStyle; });
      expect(outline).to.not.equal('none');
      await p.getByLabel('Repository URL').focus();
      await shoot(p, 'focus');
    });

    it('a narrow window folds the navigation behind a Menu button', async () => {
      const p = admin.page;
      await p.setViewportSize({ width: 390, height: 800 });
      try {
        await open(admin, '/', 'Estate');
        const nav = p.getByRole('navigation', { name: 'Main' });
        expect(await nav.isVisible()).to.equal(false);
        await p.getByRole('button', { name: 'Menu' }).click();
        expect(await nav.isVisible()).to.equal(true);
        await shoot(p, 'narrow-menu');
        await nav.getByRole('link', { name: 'Backlog' }).click();
        await settled(admin, 'Backlog');
        expect(await nav.isVisible()).to.equal(false);
        expect(await axe(p)).to.deep.equal([]);
        await shoot(p, 'narrow-backlog');
      } finally {
        await p.setViewportSize({ width: 1280, height: 800 });
      }
    });

    it('every page stays readable in a narrow window (390 px): nothing wider than the window but a table in its own scrolling region, no serious axe-core violation; screenshots of each', async function () {
      this.timeout(180_000);
      const p = admin.page;
      await open(admin, '/', 'Estate');
      const routes = await routesOf(admin);
      expect(routes.map(([label]) => label)).to.include.members(['Administration Agents', 'Administration SIEM', 'Administration SCIM token', 'Administration Sources', 'Administration Credentials', 'Repository imports']);
      await p.setViewportSize({ width: 390, height: 800 });
      const problems: string[] = [];
      try {
        for (const [label, route] of routes) {
          await open(admin, route, /./);
          // What sticks out of the window, other than what is inside a scrolling table region.
          const wide = await p.evaluate(() => {
            const width = (globalThis as any).innerWidth as number;
            const out: string[] = [];
            if (document.documentElement.scrollWidth > width) out.push(`the page is ${document.documentElement.scrollWidth} px wide`);
            for (const el of document.querySelectorAll('main *')) {
              if (el.closest('.table-wrap')) continue;
              const r = el.getBoundingClientRect();
              if (r.width > 0 && r.right > width + 1) out.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ')[0]}` : ''} ends at ${Math.round(r.right)} px`);
            }
            return out.slice(0, 5);
          });
          problems.push(...wide.map((w) => `${label}: ${w}`));
          problems.push(...(await axe(p)).map((x) => `${label}: ${x}`));
          await shoot(p, `narrow-${label.toLowerCase()}`);
        }
      } finally {
        await p.setViewportSize({ width: 1280, height: 800 });
      }
      expect(problems).to.deep.equal([]);
    });
  });

  describe('keys, passwords and time zones', () => {
    it('an administrator creates an account with its roles from Administration', async () => {
      const p = admin.page;
      await open(admin, '/admin/accounts', 'Administration: Accounts');
      await p.getByLabel('Username').fill('audrey');
      await p.getByLabel('Initial password').fill('audrey-long-password');
      await p.getByRole('checkbox', { name: 'auditor' }).check();
      await p.getByRole('button', { name: 'Create account' }).click();
      await p.getByRole('button', { name: 'Change audrey' }).waitFor();
      expect(await p.getByLabel('Username').inputValue()).to.equal('');
      const token = await v.signIn('audrey', 'audrey-long-password');
      expect((await v.request('GET', '/me', { token })).body.roles).to.deep.equal(['auditor']);
    });

    it('pages the accounts 50 at a time through the API\'s Link (the next page\'s after in the address; Back returns)', async function () {
      this.timeout(120_000);
      const token = await v.signIn();
      let total = (await v.request('GET', '/accounts?limit=1000', { token })).body.length;
      for (let i = 0; total <= 55; i++, total++) {
        expect((await v.request('POST', '/accounts', { token, body: { username: `many-${i}`, password: 'a-long-enough-password', roles: ['reader'] } })).status).to.equal(201);
      }
      const p = admin.page;
      const usernames = () => p.getByRole('table', { name: 'Accounts' }).locator('tbody tr td:nth-child(2)').allTextContents();
      await open(admin, '/admin/accounts', 'Administration: Accounts');
      const first = await usernames();
      expect(first).to.have.length(50);
      await p.getByRole('link', { name: 'Next page' }).click();
      await p.waitForFunction(() => (document as any).body.dataset.route.includes('after='));
      await settled(admin, 'Administration: Accounts');
      const second = await usernames();
      expect(second).to.have.length(total - 50);
      expect(second.filter((u) => first.includes(u))).to.deep.equal([]);
      expect(await axe(p)).to.deep.equal([]);
      await p.getByRole('link', { name: 'Previous page' }).click();
      await p.waitForFunction(() => !(document as any).body.dataset.route.includes('after='));
      await settled(admin, 'Administration: Accounts');
      expect(await usernames()).to.deep.equal(first);
    });

    it('pages the estate\'s projects 50 at a time through the API\'s Link, apart from the solutions (projects_after in the address; Back returns)', async function () {
      this.timeout(120_000);
      const token = await v.signIn();
      let total = (await v.request('GET', '/projects?limit=1000', { token })).body.length;
      for (let i = 0; total <= 55; i++, total++) {
        expect((await v.request('POST', '/projects', { token, body: { name: `Paged project ${i}` } })).status).to.equal(201);
      }
      const p = admin.page;
      const names = () => p.getByRole('table', { name: 'Projects' }).locator('tbody tr td:nth-child(1)').allTextContents();
      await open(admin, '/', 'Estate');
      const first = await names();
      expect(first).to.have.length(50);
      const solutionsBefore = await p.getByRole('table', { name: 'Solutions' }).locator('tbody tr').count();
      await p.getByRole('navigation', { name: 'Pages of projects' }).getByRole('link', { name: 'Next page' }).click();
      await p.waitForFunction(() => (document as any).body.dataset.route.includes('projects_after='));
      await settled(admin, 'Estate');
      await p.waitForFunction((n) => {
        const t = [...(document as any).querySelectorAll('table')].find((x: any) => x.caption?.textContent === 'Projects');
        return t && t.querySelectorAll('tbody tr').length === n;
      }, total - 50);
      const second = await names();
      expect(second.filter((n) => first.includes(n))).to.deep.equal([]);
      expect(await p.getByRole('table', { name: 'Solutions' }).locator('tbody tr').count(), 'the solutions stay on their page').to.equal(solutionsBefore);
      expect(await axe(p)).to.deep.equal([]);
      await shoot(p, 'estate-projects-page-2');
      await p.getByRole('navigation', { name: 'Pages of projects' }).getByRole('link', { name: 'Previous page' }).click();
      await p.waitForFunction(() => !(document as any).body.dataset.route.includes('projects_after='));
      await settled(admin, 'Estate');
      await p.waitForFunction((n) => {
        const t = [...(document as any).querySelectorAll('table')].find((x: any) => x.caption?.textContent === 'Projects');
        return t && t.querySelectorAll('tbody tr').length === n;
      }, 50);
      expect(await names()).to.deep.equal(first);
    });

    it('an auditor reads the audit log filtered by type and verifies the chain', async () => {
      const account = await v.account(['auditor'], 'auditor-log');
      const d = await drive(browser, v.url);
      try {
        await signIn(d, account.username, 'a-long-enough-password');
        await open(d, '/audit', 'Audit log');
        await d.page.getByLabel('Event type').fill('RepositoryRegistered');
        await d.page.getByRole('button', { name: 'Apply' }).click();
        await d.page.waitForFunction(() => [...document.querySelectorAll('table tbody tr td:nth-child(2)')].every((td: any) => td.textContent === 'RepositoryRegistered'));
        const registered = (await v.request('GET', '/repositories?limit=500', { token: await v.signIn() })).body.length;
        expect(await d.page.getByRole('table', { name: 'Audit entries in chain order' }).locator('tbody tr').count()).to.equal(registered);
        await d.page.getByRole('button', { name: 'Verify the chain' }).click();
        await d.page.getByText(/The chain holds: \d+ entries/).waitFor();
        await shoot(d.page, 'audit-verified');
        expect(d.errors).to.deep.equal([]);
      } finally {
        await d.context.close();
      }
    });

    it('issues an API key whose secret is shown once and works against the API', async () => {
      const p = admin.page;
      await open(admin, '/admin/keys', 'Administration: API keys');
      await p.getByLabel('Key name').fill('ci-pipeline');
      await p.getByRole('checkbox', { name: 'sarif_import' }).check();
      await p.getByRole('button', { name: 'Issue key' }).click();
      const secret = p.locator('.secret code');
      await secret.waitFor();
      const key = (await secret.textContent())!;
      expect(key).to.match(/^vgl_k_/);
      await shoot(p, 'key-issued');
      const me = await v.request('GET', '/me', { apiKey: key });
      expect(me.status).to.equal(200);
      expect(me.body.scopes).to.have.members(['read', 'sarif_import']);
      await p.getByRole('button', { name: 'I have copied it' }).click();
      expect(await p.locator('.secret').count()).to.equal(0);
      expect(await p.content()).to.not.include(key);
      await p.getByRole('button', { name: 'Revoke key ci-pipeline' }).click();
      await p.waitForFunction(() => !document.querySelector('button[aria-label="Revoke key ci-pipeline"]'));
      expect((await v.request('GET', '/me', { apiKey: key })).status).to.equal(401);
    });

    it('a person changes their own password and signs in with the new one', async () => {
      const account = await v.account(['writer'], 'writer-pw');
      const d = await drive(browser, v.url);
      try {
        await signIn(d, account.username, 'a-long-enough-password');
        await open(d, '/account', 'Your account');
        await d.page.getByLabel('Current password').fill('a-long-enough-password');
        await d.page.getByLabel('New password').fill('another-long-password-2026');
        await d.page.getByRole('button', { name: 'Change password' }).click();
        await d.page.getByText('Your password was changed.').waitFor();
        await d.page.getByRole('button', { name: 'Sign out' }).click();
        await signIn(d, account.username, 'another-long-password-2026');
        expect(d.errors).to.deep.equal([]);
      } finally {
        await d.context.close();
      }
    });

    it('signing out forgets the session before the server answers: a reload meanwhile shows the sign-in form and calls nothing with the ended session, and the server ends it all the same', async () => {
      const account = await v.account(['reader'], 'reader-sign-out');
      const d = await drive(browser, v.url);
      try {
        for (const slowAnswer of [true, false]) {
          await signIn(d, account.username, 'a-long-enough-password');
          const token = (await d.page.evaluate(() => (globalThis as any).sessionStorage.getItem('vigil.session'))) as string;
          const usedAfterSignOut: string[] = [];
          let signingOut = false;
          const watch = (r: import('playwright-core').Request) => {
            if (signingOut && r.headers().authorization === `Bearer ${token}` && !r.url().endsWith('/auth/sign-out')) usedAfterSignOut.push(r.url());
          };
          d.page.on('request', watch);
          // A slow server (its answer held at the network, as a busy one would keep it) must not matter to the page.
          let release = () => undefined as void;
          const held = new Promise<void>((ok) => { release = ok; });
          if (slowAnswer) await d.page.route('**/api/v1/auth/sign-out', async (route) => { const answer = await route.fetch(); await held; await route.fulfill({ response: answer }); });
          signingOut = true;
          await d.page.getByRole('button', { name: 'Sign out' }).click();
          await d.page.goto('/'); // at once, as a person reloading would
          await d.page.getByLabel('Username').waitFor();
          expect(await d.page.getByText('Your session ended').count(), 'an ended session was used').to.equal(0);
          release();
          await d.page.unrouteAll({ behavior: 'ignoreErrors' });
          d.page.off('request', watch);
          expect(usedAfterSignOut).to.deep.equal([]);
          // The sign-out reached the server although the page was left at once (keepalive).
          let status = 0;
          for (let i = 0; i < 50 && status !== 401; i++) {
            status = (await v.request('GET', '/me', { token })).status;
            if (status !== 401) await new Promise((ok) => setTimeout(ok, 200));
          }
          expect(status, 'the left session is refused').to.equal(401);
        }
        expect(d.errors).to.deep.equal([]);
      } finally {
        await d.context.close();
      }
    });

    it('[S2.6-37] a person sets up a second factor, keeps the backup codes shown once, and signs in with one', async () => {
      const account = await v.account(['writer'], 'writer-2fa');
      const d = await drive(browser, v.url);
      try {
        await signIn(d, account.username, 'a-long-enough-password');
        await open(d, '/account', 'Your account');
        await d.page.getByRole('button', { name: 'Set up a second factor' }).click();
        const secret = (await d.page.locator('.secret code').first().textContent())!;
        const code = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate();
        await d.page.getByLabel('Code from the app').fill(code);
        await d.page.getByRole('button', { name: 'Confirm' }).click();
        await d.page.getByText('Your backup codes').waitFor();
        const codes = await d.page.locator('.secret li code').allTextContents();
        expect(codes).to.have.length(10);
        await shoot(d.page, 'second-factor-codes');
        await d.page.getByRole('button', { name: 'I have kept them' }).click();
        await d.page.getByText(/A second factor \(TOTP\) protects your sign-in; 10 backup codes left/).waitFor();
        await d.page.getByRole('button', { name: 'Sign out' }).click();
        await d.page.getByLabel('Username').fill(account.username);
        await d.page.getByLabel('Password').fill('a-long-enough-password');
        d.expectErrors(/401/); // the password's answer is the challenge, a 401 by the API's design
        await d.page.getByRole('button', { name: 'Sign in' }).click();
        await d.page.getByRole('button', { name: 'Use a backup code' }).click();
        await d.page.getByLabel('Backup code').fill(codes[0]);
        await d.page.getByRole('button', { name: 'Continue' }).click();
        await settled(d, 'Estate');
        expect(d.errors).to.deep.equal([]);
      } finally {
        await d.context.close();
      }
    });

    it('shows times in the browser\'s zone, keeping the UTC instant in <time datetime>', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: v.url, timezoneId: 'Pacific/Auckland', locale: 'en-GB' });
      const d: Driven = { context, page: await context.newPage(), errors: [], expectErrors: () => undefined };
      try {
        await signIn(d, ADMIN.username, ADMIN.password);
        await open(d, '/issues/1', 'Issue #1');
        const time = d.page.getByRole('table', { name: /Every decision/ }).locator('time').first();
        const instant = (await time.getAttribute('datetime'))!;
        const expected = new Date(instant).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Pacific/Auckland' });
        expect(await time.textContent()).to.equal(expected);
        expect(expected).to.not.equal(new Date(instant).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }));
      } finally {
        await context.close();
      }
    });
  });
});
