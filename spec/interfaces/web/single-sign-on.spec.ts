import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { buildWeb } from '../../../scripts/build-web';
import { launchBrowser } from '../../support/browser';
import { RunningIdp, startIdp } from '../../support/oidc';
import { ADMIN, RunningVigil, startVigil } from '../../support/vigil';
import { axe, drive, Driven, settled, shoot } from './support';

declare const sessionStorage: { getItem(k: string): string | null };

/**
 * Single sign-on from the web interface (issue #16): Chromium follows the real flow against
 * node-oidc-provider on loopback (spec/support/oidc-idp.mjs, whose login page is the test's hand:
 * ?login=<subject>), back to the interface, which takes the session from POST /auth/oidc/handoff.
 */
describe('web interface: single sign-on (Chromium, a real Vigil and a real OpenID provider)', function () {
  this.timeout(90_000);
  let browser: Browser;
  let idp: RunningIdp;
  let v: RunningVigil;

  before(async function () {
    browser = await launchBrowser(this);
    await buildWeb();
    idp = await startIdp();
    v = await startVigil({ env: idp.env });
  });
  after(async () => {
    await browser?.close();
    await v?.stop();
    await idp?.stop();
  });

  /** Console errors of the interface's pages (the provider's own pages, its 400 without ?login= and its missing favicon, are not the interface's). */
  const ours = (d: Driven) => d.errors.filter((e) => !e.startsWith(`${idp.issuer}/`));

  /** Clicks the button, then signs `login` in at the provider's page (the interaction), as a person would there. */
  async function throughProvider(d: Driven, login: string): Promise<void> {
    await d.page.getByRole('link', { name: 'Sign in with single sign-on' }).click();
    await d.page.waitForURL((u) => u.pathname.startsWith('/interaction/'));
    const interaction = new URL(d.page.url());
    interaction.searchParams.set('login', login);
    await d.page.goto(interaction.toString());
  }

  it('offers single sign-on on the sign-in page; a person signs on at the provider and lands, signed in, on the page they had asked for', async () => {
    const d = await drive(browser, v.url);
    try {
      await d.page.goto('/#/targets');
      await d.page.getByRole('link', { name: 'Sign in with single sign-on' }).waitFor();
      expect(await axe(d.page)).to.deep.equal([]);
      await shoot(d.page, 'sign-in-sso');
      await throughProvider(d, 'olivia');
      await settled(d, 'Targets');
      expect(new URL(d.page.url()).search, 'the marker is gone from the address').to.equal('');
      expect(d.page.url()).to.match(/#\/targets$/);
      const token = await d.page.evaluate(() => sessionStorage.getItem('vigil.session'));
      expect((await v.request('GET', '/me', { token: token! })).body).to.deep.include({ username: 'olivia', roles: ['reader'] });
      expect(await d.page.getByRole('link', { name: 'User olivia' }).count()).to.equal(1);
      // The handoff cookie was taken and cleared: the browser holds no cookie of Vigil's any more
      // (cookies ignore ports: the provider's own, on the same loopback address, stay).
      expect((await d.context.cookies(v.url)).map((c) => c.name).filter((n) => n.startsWith('vigil'))).to.deep.equal([]);
      await d.page.getByRole('button', { name: 'Sign out' }).click();
      await d.page.getByRole('link', { name: 'Sign in with single sign-on' }).waitFor();
      expect(ours(d)).to.deep.equal([]);
    } finally {
      await d.context.close();
    }
  });

  it('a refused sign-on comes back to the sign-in page saying why, signed out', async () => {
    const d = await drive(browser, v.url);
    try {
      await d.page.goto('/');
      await throughProvider(d, ADMIN.username); // the bootstrap administrator is not linked (VIGIL_OIDC_LINK_PRIVILEGED_ACCOUNTS off)
      const alert = d.page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).to.include('cannot be tied to your account');
      expect(new URL(d.page.url()).search).to.equal('');
      expect(await d.page.evaluate(() => sessionStorage.getItem('vigil.session'))).to.equal(null);
      expect(await axe(d.page)).to.deep.equal([]);
      await shoot(d.page, 'sign-in-sso-refused');
      expect(ours(d)).to.deep.equal([]);
    } finally {
      await d.context.close();
    }
  });

  it('without an issuer the sign-in page offers no single sign-on', async () => {
    const plain = await startVigil();
    const d = await drive(browser, plain.url);
    try {
      await d.page.goto('/');
      await d.page.getByLabel('Username').waitFor();
      expect(await d.page.getByRole('link', { name: 'Sign in with single sign-on' }).count()).to.equal(0);
    } finally {
      await d.context.close();
      await plain.stop();
    }
  });
});
