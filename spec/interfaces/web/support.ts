/**
 * One Chromium page driving the web interface of a real Vigil: console errors and uncaught
 * exceptions collected, pages opened by their #route, an axe-core check, screenshots saved.
 */
import fs from 'node:fs';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { screenshotPath } from '../../support/browser';


// Names of the page's world, used inside page.evaluate callbacks (the spec's tsconfig has no DOM library).
declare const document: any;
declare const location: { hash: string };
declare const window: any;
type Document = unknown;
export interface Driven { context: BrowserContext; page: Page; errors: string[]; expectErrors: (pattern: RegExp) => void }

/** A fresh context (its own sessionStorage: its own person) at 1280x800. */
export async function drive(browser: Browser, url: string): Promise<Driven> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: url });
  const page = await context.newPage();
  const errors: string[] = [];
  let allowed: RegExp | null = null;
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    // A refusal the test provokes on purpose logs "Failed to load resource: ... 409": allowed once, by name.
    if (allowed && allowed.test(m.text())) { allowed = null; return; }
    errors.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
  return { context, page, errors, expectErrors: (pattern) => { allowed = pattern; } };
}

/** Opens #route and waits until its heading says `title` and nothing is loading any more. */
export async function open(d: Driven, route: string, title: string | RegExp): Promise<void> {
  const hash = `#${route}`;
  if (await d.page.evaluate((h) => !!document.body?.dataset.route && location.hash !== h, hash).catch(() => false)) {
    // The interface is up: moving '#' is what a click on one of its links does, without a reload.
    await d.page.evaluate((h) => { (document.body.dataset as any).route = ''; location.hash = h; }, hash);
    await d.page.waitForFunction((h) => document.body.dataset.route === h, hash, { timeout: 15_000 });
  } else {
    await d.page.goto('about:blank'); // the same '#' again is a fresh load, not a no-op
    await d.page.goto(`/${hash}`);
  }
  await settled(d, title);
}

/** Waits until the page's heading matches `title` and nothing on it says Loading. */
export async function settled(d: Driven, title: string | RegExp): Promise<void> {
  const source = typeof title === 'string' ? `^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$` : title.source;
  try {
    await d.page.waitForFunction((src) => {
      const heading = document.querySelector('h1#page-title');
      if (!heading || !new RegExp(src).test(heading.textContent ?? '')) return false;
      return ![...document.querySelectorAll('[role=status]')].some((e: any) => e.textContent?.includes('Loading'));
    }, source, { timeout: 15_000 });
  } catch (error) {
    const shown = await d.page.locator('h1').first().textContent().catch(() => null);
    throw new Error(`The page did not settle on a heading matching ${source} (shown: ${JSON.stringify(shown)}): ${(error as Error).message.split('\n')[0]}`);
  }
}

export async function signIn(d: Driven, username: string, password: string): Promise<void> {
  await d.page.goto('/');
  await d.page.getByLabel('Username').fill(username);
  await d.page.getByLabel('Password').fill(password);
  await d.page.getByRole('button', { name: 'Sign in' }).click();
  await settled(d, 'Estate');
}

const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's WCAG 2.x A/AA rules on the page as shown; answers the serious and critical violations. */
export async function axe(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern (the page itself allows no inline script).
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const w = window as unknown as { axe: { run: (ctx: Document, o: object) => Promise<{ violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }> }> } };
    const r = await w.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.targets.join(', ')}`);
}

export async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: screenshotPath(`web-${name}`), fullPage: true });
}
