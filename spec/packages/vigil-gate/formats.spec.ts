import Ajv04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { SaxesParser } from 'saxes';
import { githubAnnotations, stepSummary, writeStepSummary } from '../../../packages/vigil-gate/src/formats/github';
import { render } from '../../../packages/vigil-gate/src/formats';
import { GateVerdict, ReportContext } from '../../../packages/vigil-gate/src/verdict';
import { corpusPath, requireCorpus } from '../../support/corpus';

const failed: GateVerdict = {
  id: 41, targetKind: 'repository', targetId: 7, passed: false, at: '2026-11-25T17:00:00.000Z',
  policy: { include_triaged: false, fixable_only: false, severity: 'high', include_plugins: false },
  violations: [
    { rule: 'kev', reason: 'CVE-2021-44228 in log4j-core is in the KEV catalogue', issueId: 12, identifier: 'CVE-2021-44228', severity: 'critical', package: 'log4j-core' },
    { rule: 'severity', reason: 'Hard-coded secret, high', issueId: 13, identifier: 'generic-api-key', severity: 'high', package: null, path: 'src/config/keys, old:1.ts', line: 42 },
    { rule: 'severity', reason: 'Tag <b> & "quotes" \u0001 in text', issueId: 14, identifier: 'xss<script>', severity: 'medium', package: null, path: 'web/a b.html' },
    { rule: 'coverage', reason: 'Line coverage 41.0% is below 80%' },
  ],
};
const passed: GateVerdict = { id: 42, passed: true, violations: [], policy: { severity: 'high' } };
const ctx: ReportContext = { targetLabel: 'repository 7', advisory: false, url: 'https://vigil.example/api/v1', version: '1.0.0' };

/** Issue #15: each output format of the vigil-gate package, checked by what reads it. */
describe('vigil-gate output formats', () => {
  describe('sarif', function () {
    requireCorpus(this);
    const schema = () => JSON.parse(readFileSync(corpusPath('schemas', 'sarif', 'sarif-schema-2.1.0.json'), 'utf8'));

    it('[#15] is valid SARIF 2.1.0 (the official schema) for a failed and a passed verdict, with rule, level, path and line where known', () => {
      const ajv = new Ajv04({ allErrors: true, strict: false });
      addFormats(ajv);
      const validate = ajv.compile(schema());
      for (const verdict of [failed, passed]) {
        const log = JSON.parse(render('sarif', verdict, ctx));
        expect(validate(log), ajv.errorsText(validate.errors)).to.equal(true);
      }
      const run = JSON.parse(render('sarif', failed, ctx)).runs[0];
      expect(run.tool.driver.name).to.equal('vigil-gate');
      expect(run.tool.driver.rules.map((r: { id: string }) => r.id)).to.deep.equal(['kev', 'severity', 'coverage']);
      expect(run.results.map((r: { ruleId: string; level: string }) => [r.ruleId, r.level])).to.deep.equal([['kev', 'error'], ['severity', 'error'], ['severity', 'warning'], ['coverage', 'warning']]);
      expect(run.results[1].locations[0].physicalLocation).to.deep.equal({ artifactLocation: { uri: 'src/config/keys%2C%20old%3A1.ts' }, region: { startLine: 42 } });
      expect(run.results[2].locations[0].physicalLocation).to.deep.equal({ artifactLocation: { uri: 'web/a%20b.html' } });
      expect(run.results[0].locations).to.equal(undefined);
      expect(run.results[0].partialFingerprints).to.deep.equal({ vigilIssueId: '12' });
      expect(run.invocations[0].exitCode).to.equal(1);
      expect(run.properties).to.include({ verdictId: 41, passed: false });
    });
  });

  describe('junit', () => {
    /** Reads the report back with a strict XML parser: suites, cases, failures. */
    function parse(text: string) {
      const parser = new SaxesParser();
      const cases: Array<{ attributes: Record<string, string>; failure?: Record<string, string>; text: string }> = [];
      const suites: Record<string, string>[] = [];
      let top: Record<string, string> = {};
      parser.on('opentag', (tag) => {
        const attributes = tag.attributes as Record<string, string>;
        if (tag.name === 'testsuites') top = attributes;
        if (tag.name === 'testsuite') suites.push(attributes);
        if (tag.name === 'testcase') cases.push({ attributes, text: '' });
        if (tag.name === 'failure') cases[cases.length - 1].failure = attributes;
      });
      parser.on('text', (t) => { if (cases.length) cases[cases.length - 1].text += t; });
      parser.write(text).close();
      return { top, suites, cases };
    }

    it('[#15] parses back: one failing case per violation with its rule and reason, escaped; a passed verdict is one passing case', () => {
      const report = parse(render('junit', failed, ctx));
      expect(report.top).to.include({ tests: '4', failures: '4' });
      expect(report.suites).to.have.length(1);
      expect(report.suites[0]).to.include({ name: 'Vigil gate: repository 7', tests: '4', failures: '4' });
      expect(report.cases.map((c) => c.attributes.classname)).to.deep.equal(['vigil-gate.kev', 'vigil-gate.severity', 'vigil-gate.severity', 'vigil-gate.coverage']);
      expect(report.cases[0].attributes.name).to.equal('CVE-2021-44228 in log4j-core');
      expect(report.cases[1].attributes).to.include({ file: 'src/config/keys, old:1.ts', line: '42' });
      expect(report.cases[2].attributes.name).to.equal('xss<script>');
      expect(report.cases[2].failure!.message).to.equal('Tag <b> & "quotes" \uFFFD in text');
      expect(report.cases[3].failure).to.include({ type: 'coverage', message: 'Line coverage 41.0% is below 80%' });
      const green = parse(render('junit', passed, ctx));
      expect(green.top).to.include({ tests: '1', failures: '0' });
      expect(green.cases).to.have.length(1);
      expect(green.cases[0].failure).to.equal(undefined);
    });
  });

  describe('github', () => {
    it('[#15] writes ::error file=...,line=...:: annotations with GitHub\'s escapes, then the summary', () => {
      const lines = githubAnnotations(failed, ctx);
      expect(lines[0]).to.equal('::error title=Vigil gate%3A kev CVE-2021-44228 in log4j-core::CVE-2021-44228 in log4j-core is in the KEV catalogue (Vigil issue 12)');
      expect(lines[1]).to.equal('::error file=src/config/keys%2C old%3A1.ts,line=42,title=Vigil gate%3A severity generic-api-key::Hard-coded secret, high (Vigil issue 13)');
      expect(lines[2]).to.match(/^::error file=web\/a b.html,title=/);
      expect(lines[3]).to.equal('::error title=Vigil gate%3A coverage::Line coverage 41.0%25 is below 80%25');
      expect(lines).to.include('Result: failed (exit 1)');
      expect(githubAnnotations(failed, { ...ctx, advisory: true })[0]).to.match(/^::warning /);
      expect(githubAnnotations({ ...failed, violations: [{ rule: 'observation', reason: 'line one\nline two 100%' }] }, ctx)[0])
        .to.equal('::error title=Vigil gate%3A observation::line one%0Aline two 100%25');
    });

    it('[#15] appends a Markdown step summary to $GITHUB_STEP_SUMMARY', () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'vigil-gate-summary-'));
      try {
        const file = path.join(dir, 'summary.md');
        writeStepSummary(file, failed, ctx);
        writeStepSummary(file, passed, ctx);
        const text = readFileSync(file, 'utf8');
        expect(text).to.contain('### Vigil gate: ❌ failed').and.contain('### Vigil gate: ✅ passed');
        expect(text).to.contain('| severity | high | generic-api-key | src/config/keys, old:1.ts:42 | 13 |');
        expect(stepSummary(failed, { ...ctx, advisory: true })).to.contain('advisory');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it('[#15] json is the verdict as Vigil answered it; text is the one-screen summary', () => {
    expect(JSON.parse(render('json', failed, ctx))).to.deep.equal(failed);
    expect(render('text', passed, ctx)).to.contain('Vigil gate for repository 7: PASSED (verdict 42)').and.contain('Result: passed (exit 0)');
  });
});
