import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { RunningVigil, startVigil } from '../support/vigil';

const ROOT = path.resolve(__dirname, '../..');

/** The shell blocks of the README's walkthrough, after the one that starts Vigil. */
function walkthrough(): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Five minutes with Vigil');
  expect(start, 'the README has a walkthrough').to.be.at.least(0);
  const section = readme.slice(start, readme.indexOf('\n## ', start + 5));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).filter((block) => !block.includes('npm start'));
}

/**
 * Issue #15: the README's five-minute walkthrough, run as written (bash, curl, jq) against Vigil on
 * the embedded default with the bootstrap account it names: sign in, register a repository, import
 * a SARIF document, triage the issue, ask the gate, read the scorecard.
 */
describe('README walkthrough', function () {
  this.timeout(120_000);
  let v: RunningVigil;
  let dir: string;
  before(async () => {
    v = await startVigil({ env: { VIGIL_BOOTSTRAP_USERNAME: 'admin', VIGIL_BOOTSTRAP_PASSWORD: 'change-me-please' } });
    dir = mkdtempSync(path.join(tmpdir(), 'vigil-readme-'));
  });
  after(async () => {
    await v?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('[#15] every step answers as the README says, with nothing but curl and jq', async () => {
    const blocks = walkthrough();
    expect(blocks).to.have.length(6);
    const host = v.url.replace(/^http:\/\//, '');
    // One shell for the whole walkthrough, as a reader's terminal keeps its variables; each step echoes a marker.
    const script = ['set -euo pipefail', ...blocks.map((b, i) => `${b.replaceAll('localhost:3180', host)}\necho "--- step ${i + 1} done"`)].join('\n');
    const run = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      const child = spawn('bash', ['-c', script], { cwd: dir });
      let out = '';
      child.stdout.on('data', (d) => { out += d; });
      child.stderr.on('data', (d) => { out += d; });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(run.code, run.out).to.equal(0);
    for (let i = 1; i <= 6; i++) expect(run.out).to.contain(`--- step ${i} done`);
    const out = run.out.replace(/\s+/g, ' ');
    expect(out).to.match(/repository \d+/);
    expect(out).to.contain('"resultsCount": 1, "createdCount": 1');
    expect(out).to.contain('"path": "src/orders.js", "line": 42, "triageStatus": "affected"');
    expect(out).to.contain('"passed": false').and.contain('"rule": "observation"');
    expect(out).to.contain('"grade": "NO_DATA"');
  });
});
