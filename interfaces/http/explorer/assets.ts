import { readFileSync } from 'node:fs';
import * as path from 'node:path';

/**
 * Swagger UI's files from the swagger-ui-dist package, read once and served by Vigil itself: the
 * explorer works where no CDN can be reached, and the strict Content-Security-Policy
 * (scripts only from Vigil) holds.
 */
export interface Asset { type: string; body: Buffer }

const FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

export function swaggerUiAssets(): Map<string, Asset> {
  const dir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  return new Map(Object.entries(FILES).map(([name, type]) => [name, { type, body: readFileSync(path.join(dir, name)) }]));
}

export function swaggerUiVersion(): string {
  return (JSON.parse(readFileSync(require.resolve('swagger-ui-dist/package.json'), 'utf8')) as { version: string }).version;
}
