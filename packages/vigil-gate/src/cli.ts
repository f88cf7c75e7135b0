import { writeFileSync } from 'node:fs';
import { render } from './formats';
import { writeStepSummary } from './formats/github';
import { summary } from './formats/text';
import { call, Io, refusal, waitForScan } from './http';
import { NotAsked, Options, parseOptions, USAGE } from './options';
import { EXIT, exitCodeOf, GateVerdict, ReportContext } from './verdict';
import { VERSION } from './version';

export { EXIT } from './verdict';
export { parseOptions } from './options';
export { summary } from './formats/text';
export type { Io } from './http';

/**
 * vigil-gate: asks a Vigil's CI gate about one target, once per pipeline (spec 1 §4.1), and exits
 *   0  the verdict passed
 *   1  the verdict failed
 *   2  the gate could not be asked (usage, network, 401, 403, 404, 400, 429, 5xx, an unreadable answer)
 *   3  the verdict failed and --advisory accepts it
 * Optionally waits first until the repository has no scan pending or running (spec 1 §8.2: up to
 * 1800 s by default, polling every 10 s). It never retries POST /gate: every call is a verdict on record.
 */
export async function run(argv: readonly string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  let o: Options | 'help' | 'version';
  try {
    o = parseOptions(argv, env);
  } catch (error) {
    io.err(`vigil-gate: ${(error as Error).message}`);
    io.err('Run vigil-gate --help for the options. The gate was not asked (exit 2).');
    return EXIT.notAsked;
  }
  if (o === 'help') {
    io.out(USAGE.trimEnd());
    return EXIT.passed;
  }
  if (o === 'version') {
    io.out(VERSION);
    return EXIT.passed;
  }
  try {
    if (o.waitForScan) await waitForScan(o, io);
    const a = await call(o, 'POST', '/gate', o.body);
    if (a.status !== 200) throw refusal(a, 'POST /gate');
    const verdict = a.body as GateVerdict;
    if (!verdict || typeof verdict !== 'object' || typeof verdict.passed !== 'boolean' || !Array.isArray(verdict.violations)) {
      throw new NotAsked('POST /gate answered 200 without a verdict ({passed, violations})');
    }
    report(o, verdict, env, io);
    return exitCodeOf(verdict, o.advisory);
  } catch (error) {
    if (!(error instanceof NotAsked)) throw error;
    io.err(`vigil-gate: could not ask the gate about ${o.targetLabel}: ${error.message}`);
    io.err('Result: not asked (exit 2)');
    return EXIT.notAsked;
  }
}

/** The verdict on the standard output in the chosen format, in each --output file, and in GitHub's step summary. */
function report(o: Options, verdict: GateVerdict, env: NodeJS.ProcessEnv, io: Io): void {
  const ctx: ReportContext = { targetLabel: o.targetLabel, advisory: o.advisory, url: o.url, version: VERSION };
  for (const line of render(o.format, verdict, ctx).replace(/\n$/, '').split('\n')) io.out(line);
  for (const output of o.outputs) {
    try {
      writeFileSync(output.path, render(output.format, verdict, ctx));
    } catch (error) {
      // The verdict stands (it is on record); a report that cannot be written is said, not fatal.
      io.err(`vigil-gate: could not write ${output.format} to ${output.path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  if (o.format === 'github' && env.GITHUB_STEP_SUMMARY) {
    try {
      writeStepSummary(env.GITHUB_STEP_SUMMARY, verdict, ctx);
    } catch (error) {
      io.err(`vigil-gate: could not write the step summary: ${(error as Error).message}`);
    }
  }
  // With a machine format on the standard output, people still read the outcome on the error stream.
  if (o.format === 'json' || o.format === 'sarif' || o.format === 'junit') io.err(summary(ctx, verdict).slice(-1)[0]);
}
