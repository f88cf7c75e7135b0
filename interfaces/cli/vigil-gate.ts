#!/usr/bin/env node
/**
 * vigil-gate from the server's build (`npx vigil-gate` inside this repository, bin of the root
 * package). The client itself lives in its own package, packages/vigil-gate, with no server
 * dependency: CI users install that one (npm pack, or its single-file build).
 */
export { EXIT, parseOptions, run, summary } from '../../packages/vigil-gate/src/cli';

if (require.main === module) require('../../packages/vigil-gate/src/main');
