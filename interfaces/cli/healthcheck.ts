/**
 * The container's HEALTHCHECK (`node dist/interfaces/cli/healthcheck.js`): exits 0 when this
 * instance's GET /api/v1/health answers 200 within 5 seconds, 1 otherwise. The slim image has no
 * curl; Node's fetch does the same without adding a package.
 */
const port = process.env.VIGIL_PORT ?? '3180';
fetch(`http://127.0.0.1:${port}/api/v1/health`, { signal: AbortSignal.timeout(5000) }).then(
  (answer) => {
    if (answer.status !== 200) process.stderr.write(`health answered ${answer.status}\n`);
    process.exit(answer.status === 200 ? 0 : 1);
  },
  (error: Error) => {
    process.stderr.write(`health not reachable: ${error.message}\n`);
    process.exit(1);
  },
);
