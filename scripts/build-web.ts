/**
 * Builds the web interface (interfaces/web, Preact in TSX) into dist/web with esbuild: one script
 * and one stylesheet whose names carry a hash of their content, and manifest.json naming them.
 * The server declares exactly the files the manifest lists (interfaces/http/web-ui.ts). It takes
 * well under a second; `npm run build`, `npm start` and `npm test` run it (ADR 0020).
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

/** The folder holding package.json: this file runs from scripts/ (tsx) or dist/scripts/ (tsc output). */
function projectRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
}
export const WEB_SOURCE = path.join(projectRoot(), 'interfaces', 'web');
export const WEB_OUT = path.join(projectRoot(), 'dist', 'web');

export interface WebManifest { script: string; style: string; files: string[] }

export async function buildWeb(outDir = WEB_OUT): Promise<WebManifest> {
  fs.rmSync(outDir, { recursive: true, force: true });
  const result = await build({
    entryPoints: { app: path.join(WEB_SOURCE, 'main.tsx'), style: path.join(WEB_SOURCE, 'style.css') },
    outdir: outDir, entryNames: '[name]-[hash]', bundle: true, minify: true, format: 'esm', target: ['es2020'],
    jsx: 'automatic', jsxImportSource: 'preact', metafile: true, logLevel: 'warning', legalComments: 'none',
  });
  const files = Object.keys(result.metafile.outputs).map((f) => path.basename(f));
  const manifest: WebManifest = {
    script: files.find((f) => f.startsWith('app-') && f.endsWith('.js'))!,
    style: files.find((f) => f.startsWith('style-') && f.endsWith('.css'))!,
    files,
  };
  fs.writeFileSync(path.join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return manifest;
}

if (require.main === module) {
  const started = Date.now();
  buildWeb().then((m) => console.log(`web interface built in ${Date.now() - started} ms: ${m.files.join(', ')}`))
    .catch((error) => { console.error(error); process.exit(1); });
}
