import fs from 'node:fs';
import path from 'node:path';
import { Response } from 'express';
import { PageHandler } from './route';

/**
 * The web interface (issue #16, ADR 0020): a page at `/` and the built files under `/ui/`, each
 * declared by its exact path like every other page (routing.ts), so any other path stays 404.
 * The interface is a client of /api/v1 and nothing else; these handlers only hand out files.
 * Its routes live after `#` (`/#/targets`), which never reaches the server.
 */

/** No inline script or style, nothing from elsewhere: the page talks to its own origin only. */
export const WEB_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "font-src 'self'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'",
].join('; ');

const TYPES: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.map': 'application/json; charset=utf-8' };

interface Manifest { script: string; style: string; files: string[] }

/** dist/web under the folder holding package.json (this file runs from interfaces/http or dist/interfaces/http). */
export function webDir(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return path.join(dir, 'dist', 'web');
}

function guard(res: Response, cache: string): void {
  res.setHeader('Content-Security-Policy', WEB_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cache-Control', cache);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The pages of the interface, read once at start from the build's manifest. `singleSignOn` (an
 * issuer is set) puts a meta element in the page, from which the sign-in form offers the button.
 */
export function webPages(brand: string, dir = webDir(), options: { singleSignOn?: boolean } = {}): Map<string, PageHandler> {
  const pages = new Map<string, PageHandler>();
  let manifest: Manifest | null = null;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  } catch { /* not built: `/` says so */ }
  if (!manifest) {
    pages.set('/', async (_req, res) => {
      guard(res, 'no-store');
      res.status(503).type('text/plain').send('The web interface is not built: run `npm run build` (the API answers under /api/v1).');
    });
    return pages;
  }
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="application-name" content="${escapeHtml(brand)}">${options.singleSignOn ? '<meta name="vigil-sign-on" content="oidc">' : ''}<title>${escapeHtml(brand)}</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="/ui/${manifest.style}"><script type="module" src="/ui/${manifest.script}"></script></head>
<body><div id="app"></div><noscript>${escapeHtml(brand)}'s interface needs JavaScript; the API answers under /api/v1.</noscript></body></html>`;
  pages.set('/', async (_req, res) => { guard(res, 'no-cache'); res.type('html').send(html); });
  for (const file of manifest.files) {
    const type = TYPES[path.extname(file)];
    if (!type || !/^[A-Za-z0-9._-]+$/.test(file)) continue;
    const body = fs.readFileSync(path.join(dir, file));
    // The name changes with the content, so a browser may keep it for good.
    pages.set(`/ui/${file}`, async (_req, res) => { guard(res, 'public, max-age=31536000, immutable'); res.type(type).send(body); });
  }
  return pages;
}
