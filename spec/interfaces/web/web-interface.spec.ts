import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { buildWeb, WebManifest } from '../../../scripts/build-web';
import { launchBrowser } from '../../support/browser';
import { pathVariants, rawRequest } from '../../support/route-paths';
import { ADMIN, RunningVigil, startVigil } from '../../support/vigil';
import { axe, drive, Driven, open, settled, shoot, signIn } from './support';

// Used inside page.evaluate callbacks (the spec's tsconfig has no DOM library).
declare const sessionStorage: { length: number };

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
    v = await startVigil();
    admin = await drive(browser, v.url);
  });
  after(async () => {
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
});
