import { run } from './cli';
import { EXIT } from './verdict';

/** The command: `vigil-gate [options]` (the single-file build's entry point). */
run(process.argv.slice(2), process.env, {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
}).then(
  (code) => { process.exitCode = code; },
  (error) => {
    process.stderr.write(`vigil-gate: unexpected error: ${(error as Error).stack ?? error}\nResult: not asked (exit 2)\n`);
    process.exitCode = EXIT.notAsked;
  },
);
