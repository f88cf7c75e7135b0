import pkg from '../package.json';

/** The package's version (`vigil-gate --version`); esbuild writes it into the single-file build. */
export const VERSION: string = pkg.version;
