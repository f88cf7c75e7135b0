import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The real-world corpus (../shared/fixtures) is read in place, never copied into this repository.
 * VIGIL_CORPUS_DIR points elsewhere; without the folder the suites that need it say so plainly
 * and are skipped, except under CI (CI=true) where its absence fails the run.
 */
export const corpusDir = path.resolve(process.env.VIGIL_CORPUS_DIR ?? path.join(__dirname, '..', '..', '..', 'shared', 'fixtures'));

export function corpusAvailable(): boolean {
  return fs.existsSync(path.join(corpusDir, 'README.md'));
}

/** Call at the top of a describe() that needs the corpus. */
export function requireCorpus(suite: Mocha.Suite): void {
  if (corpusAvailable()) return;
  if (process.env.CI === 'true') throw new Error(`The fixture corpus is missing at ${corpusDir} (set VIGIL_CORPUS_DIR); CI requires it.`);
  // eslint-disable-next-line no-console
  console.warn(`  [corpus] ${corpusDir} not found: skipping "${suite.fullTitle()}". Set VIGIL_CORPUS_DIR to run it.`);
  suite.pending = true;
  suite.tests.forEach((t) => (t.pending = true));
}

export function corpusPath(...parts: string[]): string {
  return path.join(corpusDir, ...parts);
}

export function corpusFiles(...parts: string[]): string[] {
  const dir = corpusPath(...parts);
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => fs.statSync(path.join(dir, f)).isFile()).map((f) => path.join(dir, f));
}
