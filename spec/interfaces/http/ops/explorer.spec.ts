import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchBrowser, screenshotPath } from '../../../support/browser';
import { ADMIN, RunningVigil, startVigil } from '../../../support/vigil';

/** Issue #15: the API explorer (Swagger UI from swagger-ui-dist, served by Vigil) in a real browser. */
describe('API explorer in headless Chromium', function () {
  this.timeout(120_000);
  let v: RunningVigil;
  let browser: Browser;

  before(async function () {
    browser = await launchBrowser(this);
    v = await startVigil({ env: { VIGIL_API_DOCS_ENABLED: 'true', VIGIL_SWAGGER_UI_ENABLED: 'true' } });
  });
  after(async () => {
    await browser?.close();
    await v?.stop();
  });

  it('[S1.8.3-59] [#15] signs in, loads the document, runs GET /me with the bearer token, offline and under the strict CSP', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const outside: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error' || /Content Security Policy/i.test(m.text())) problems.push(m.text()); });
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('request', (r) => { if (!r.url().startsWith(v.url) && !r.url().startsWith('data:')) outside.push(r.url()); });

    const opened = await page.goto(`${v.url}/api/v1/explorer`);
    expect(opened?.status()).to.equal(200);
    expect(opened?.headers()['content-security-policy']).to.contain("script-src 'self'").and.not.contain('unsafe-inline');
    await page.fill('input[name=username]', ADMIN.username);
    await page.fill('input[name=password]', ADMIN.password);
    await page.click('button[type=submit]');
    // Operations start collapsed under their tags (docExpansion 'none'): Swagger UI renders a
    // document of this size (20 tags, 130+ operations) only partly when everything is expanded.
    await page.waitForSelector('.opblock-tag', { timeout: 30_000 });
    expect(await page.locator('.opblock-tag').count(), 'every tag listed').to.be.greaterThan(15);
    expect(await page.textContent('#vigil-status')).to.contain('Signed in');
    await page.click('.opblock-tag[data-tag="Identity"]');

    const me = page.locator('.opblock-get', { has: page.locator('[data-path="/me"]') }).first();
    await me.locator('.opblock-summary-control').click();
    await me.locator('button.try-out__btn').click();
    await me.locator('button.execute').click();
    const code = me.locator('.live-responses-table tbody .response-col_status').first();
    await code.waitFor({ timeout: 30_000 });
    expect((await code.textContent())?.trim()).to.equal('200');
    expect(await me.locator('.live-responses-table .microlight, .live-responses-table pre').first().textContent()).to.contain('"username": "admin"');
    await me.locator('.live-responses-table').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('api-explorer-get-me'), fullPage: false });

    expect(outside, 'requests leaving Vigil').to.deep.equal([]);
    expect(problems, 'console errors and CSP violations').to.deep.equal([]);
    await page.close();
  });

  it('[#15] a wrong password is said on the page and nothing is loaded', async () => {
    const page = await browser.newPage();
    await page.goto(`${v.url}/swagger-ui.html`);
    await page.fill('input[name=username]', ADMIN.username);
    await page.fill('input[name=password]', 'not-the-password');
    await page.click('button[type=submit]');
    await page.locator('#vigil-status', { hasText: 'Sign-in refused' }).waitFor({ timeout: 30_000 });
    expect(await page.textContent('#vigil-status')).to.match(/^Sign-in refused \(401\)/);
    expect(await page.locator('.opblock').count()).to.equal(0);
    await page.close();
  });
});
