import type { Response } from 'express';
import { PageHandler } from '../route';
import { API_BASE } from '../route-table';
import { swaggerUiAssets } from './assets';
import { EXPLORER_CSS, explorerHtml } from './page';
import { EXPLORER_SCRIPT } from './script';

export const EXPLORER_BASE = `${API_BASE}/explorer`;

/**
 * The API explorer (VIGIL_SWAGGER_UI_ENABLED): its page at /api/v1/explorer and at the
 * specification's /swagger-ui.html, and its files under /api/v1/explorer/. Each is an exact page
 * path (routing.ts), public like the sign-in form it shows; the document it loads applies its own rule.
 */
export function explorerPages(brand: string): Map<string, PageHandler> {
  const pages = new Map<string, PageHandler>();
  const html = Buffer.from(explorerHtml(brand, EXPLORER_BASE));
  const page: PageHandler = async (_req, res) => send(res, 'text/html; charset=utf-8', html, 'no-cache');
  pages.set(EXPLORER_BASE, page);
  pages.set('/swagger-ui.html', page);
  const files = new Map([...swaggerUiAssets()]);
  files.set('explorer.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(EXPLORER_SCRIPT) });
  files.set('explorer.css', { type: 'text/css; charset=utf-8', body: Buffer.from(EXPLORER_CSS) });
  for (const [name, asset] of files) {
    pages.set(`${EXPLORER_BASE}/${name}`, async (_req, res) => send(res, asset.type, asset.body, 'public, max-age=3600'));
  }
  return pages;
}

function send(res: Response, type: string, body: Buffer, cache: string): void {
  res.setHeader('Content-Type', type);
  res.setHeader('Cache-Control', cache);
  res.send(body);
}
