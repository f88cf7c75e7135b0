// `prestart` and `preprojections:rebuild`: compile the TypeScript sources into dist/ when the TypeScript compiler
// is installed (a full `npm install`), and keep the dist/ already there when it is not
// (`npm ci --omit=dev`, the container image): then `npm start` and `npm run projections:rebuild`
// run the compiled JavaScript with no compiler or tsx at run time.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
} catch {
  if (!fs.existsSync(path.join(root, 'dist', 'interfaces', 'cli', 'server.js'))) {
    process.stderr.write('vigil: TypeScript is not installed and dist/ holds no build: run `npm install` (with dev dependencies) and `npm run build` once, or use the container image.\n');
    process.exit(1);
  }
  process.exit(0);
}
const run = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit', cwd: root });
if (run.status !== 0) process.exit(run.status ?? 1);
// The web interface (ADR 0020) is bundled by esbuild, a development dependency like TypeScript.
const web = spawnSync(process.execPath, [path.join(root, 'dist', 'scripts', 'build-web.js')], { stdio: 'inherit', cwd: root });
process.exit(web.status ?? 1);
