// Builds dist/vigil-gate.js: the whole client in one file with no dependency but Node.js itself,
// runnable as `node vigil-gate.js`, from `npx <tarball>` or copied alone into a CI image.
// esbuild comes from this package's devDependencies, or from the Vigil repository around it.
'use strict';
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.resolve(__dirname, '..');
esbuild.buildSync({
  entryPoints: [path.join(root, 'src/main.ts')],
  outfile: path.join(root, 'dist/vigil-gate.js'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  banner: { js: '#!/usr/bin/env node' },
  legalComments: 'none',
  logLevel: 'warning',
});
