import { mkdirSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import Mocha from 'mocha';

/**
 * mocha's spec reporter, plus the plain closing line CI reads: "N passed, N failed, N skipped".
 * When the suite runs in groups (scripts/test-groups.ts), each group's closing line is left to the
 * runner, which adds the groups up (VIGIL_SPEC_GROUP names the group), and each group writes how
 * long each spec file took to test-results/spec-timings-<group>.json, the figures the grouping is
 * balanced by.
 */
class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    const group = process.env.VIGIL_SPEC_GROUP;
    const started = new Map<string, number>();
    const took: Record<string, number> = {};
    runner.on(Mocha.Runner.constants.EVENT_SUITE_BEGIN, (suite: Mocha.Suite) => {
      if (suite.file && suite.parent?.root) started.set(suite.fullTitle() + suite.file, Date.now());
    });
    runner.on(Mocha.Runner.constants.EVENT_SUITE_END, (suite: Mocha.Suite) => {
      const key = suite.fullTitle() + suite.file;
      if (!suite.file || !started.has(key)) return;
      const file = relative(process.cwd(), suite.file);
      took[file] = (took[file] ?? 0) + (Date.now() - started.get(key)!);
    });
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const s = runner.stats!;
      if (!group) {
        process.stdout.write(`\n${s.passes} passed, ${s.failures} failed, ${s.pending} skipped\n`);
        return;
      }
      mkdirSync('test-results', { recursive: true });
      writeFileSync(`test-results/spec-timings-${group}.json`, JSON.stringify({ passes: s.passes, failures: s.failures, pending: s.pending, files: took }, null, 1));
    });
  }
}

export = SpecWithSummary;
