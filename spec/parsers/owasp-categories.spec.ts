import { expect } from 'chai';
import * as fs from 'node:fs';
import { owaspCategoriesOfSemgrep, owaspCategoriesOfTags, owaspCategory } from '../../domain/backlog/owasp';
import { parseSarif } from '../../infrastructure/parsers/sarif';
import type { ScanTarget } from '../../application/ports/scanning';
import { ScannerOutputNormaliser } from '../../infrastructure/scanning/normalise';
import { corpusPath, requireCorpus } from '../support/corpus';

type Json = Record<string, any>;
const repo: ScanTarget = { kind: 'repository', id: 7, url: 'https://git.example.com/a/b.git', branch: 'main', subPath: '' };

/** The OWASP tags of the rule a result of a real log names, as the log writes them. */
function ruleTags(log: Json, ruleId: string): string[] {
  const rule = (log.runs[0].tool.driver.rules as Json[]).find((r) => r.id === ruleId);
  return ((rule?.properties?.tags ?? []) as string[]).filter((t) => /^owasp/i.test(t));
}

/** The normal form as the spec states it, written out independently of the parser. */
const expected = (tag: string) => {
  const m = /^OWASP-A(\d+):(\d{4})/.exec(tag)!;
  return `A${m[1].padStart(2, '0')}:${m[2]}`;
};

describe('OWASP Top 10 categories: reading and normal form (issue #16)', () => {
  describe('[S1.4.5-03] the normal form A<two-digit rank>:<year>', () => {
    it('a code in either width and any case reads as its normal form', () => {
      expect(owaspCategory('A03:2021')).to.equal('A03:2021');
      expect(owaspCategory('A3:2021')).to.equal('A03:2021');
      expect(owaspCategory('a1:2017')).to.equal('A01:2017');
      expect(owaspCategory('a10:2017')).to.equal('A10:2017');
    });
    it('anything else is no code', () => {
      for (const bad of ['', 'A0:2021', 'A00:2021', 'A11:2021', 'A003:2021', 'A3', 'A3:21', 'A3:1999', 'A3:20211', ' A3:2021', 'A3:2021 ', 'B3:2021', 'A3-2021', 'OWASP-A03:2021', 'A３:2021']) {
        expect(owaspCategory(bad), JSON.stringify(bad)).to.equal(null);
      }
    });
    it('SARIF tags: OWASP-<code>-<name> and OWASP-<code> - <name>, other tags ignored, sorted and each once', () => {
      expect(owaspCategoriesOfTags(['security', 'OWASP-A03:2021-Injection', 'CWE-89', 'OWASP-A1:2017-Injection', 'owasp-a03:2021 - Injection'])).to.deep.equal(['A01:2017', 'A03:2021']);
      expect(owaspCategoriesOfTags(['OWASP-A11:2021-Nothing', 'OWASP-A3:20210', 'A03:2021', 42, null])).to.deep.equal([]);
      expect(owaspCategoriesOfTags(undefined, 'OWASP-A03:2021', { tags: [] })).to.deep.equal([]);
    });
    it('Semgrep metadata: a list or one string, with a year or (older rules) without, the edition told by the category name', () => {
      expect(owaspCategoriesOfSemgrep(['A01:2021 - Broken Access Control', 'A05:2017 - Broken Access Control'])).to.deep.equal(['A01:2021', 'A05:2017']);
      expect(owaspCategoriesOfSemgrep('A3: Sensitive Data Exposure')).to.deep.equal(['A03:2017']);
      expect(owaspCategoriesOfSemgrep('A1: Injection')).to.deep.equal(['A01:2017']);
      expect(owaspCategoriesOfSemgrep('A3: Injection')).to.deep.equal(['A03:2021']);
      expect(owaspCategoriesOfSemgrep('A7: Cross-Site Scripting (XSS)')).to.deep.equal(['A07:2017']);
      // A rank and a name that no edition pairs, or no name at all: the edition cannot be told.
      expect(owaspCategoriesOfSemgrep('A3: Broken Access Control')).to.deep.equal([]);
      expect(owaspCategoriesOfSemgrep('A3')).to.deep.equal([]);
      expect(owaspCategoriesOfSemgrep(undefined)).to.deep.equal([]);
      expect(owaspCategoriesOfSemgrep(7)).to.deep.equal([]);
    });
  });

  describe('real Semgrep output (the corpus)', function () {
    requireCorpus(this);

    // 1.69.0's results are of rules tagged OWASP-...; 1.16.0's four results are of one rule tagged with none.
    for (const [file, someTagged] of [['sarif/semgrep/semgrep-1.69.0.sarif', true], ['sarif/semgrep/semgrep-1.16.0.sarif', false]] as const) {
      it(`${file}: every finding carries the categories its rule's tags name, in normal form (none when none)`, () => {
        const body = fs.readFileSync(corpusPath(file));
        const log = JSON.parse(body.toString('utf8'));
        const parsed = parseSarif(body);
        const findings = parsed.runs.flatMap((r) => r.findings);
        expect(findings.length).to.be.greaterThan(0);
        let tagged = 0;
        for (const f of findings) {
          const want = [...new Set(ruleTags(log, f.ruleId).map(expected))].sort();
          expect(f.owaspCategories ?? [], f.ruleId).to.deep.equal(want);
          if (want.length) tagged++;
          for (const c of f.owaspCategories ?? []) expect(c).to.match(/^A(0[1-9]|10):20\d\d$/);
        }
        if (someTagged) expect(tagged, 'findings with categories').to.be.greaterThan(0);
        else expect(findings.every((f) => f.owaspCategories === undefined), 'no categories member on an untagged finding').to.equal(true);
      });
    }

    it('semgrep-1.69.0.sarif: a rule tagged OWASP-A1:2017-Injection and OWASP-A03:2021-Injection reads A01:2017 and A03:2021', () => {
      const body = fs.readFileSync(corpusPath('sarif/semgrep/semgrep-1.69.0.sarif'));
      const log = JSON.parse(body.toString('utf8'));
      const rule = (log.runs[0].tool.driver.rules as Json[]).find((r) => (r.properties?.tags ?? []).includes('OWASP-A1:2017-Injection') && r.properties.tags.includes('OWASP-A03:2021-Injection'));
      expect(rule, 'such a rule in the fixture').to.not.equal(undefined);
      const f = parseSarif(body).runs[0].findings.find((x) => x.ruleId === rule!.id);
      expect(f, `a result of ${rule!.id}`).to.not.equal(undefined);
      expect(f!.owaspCategories).to.include.members(['A01:2017', 'A03:2021']);
    });

    it('the built-in SAST step reads Semgrep JSON extra.metadata.owasp ("A3: Sensitive Data Exposure" is A03:2017)', () => {
      const output = JSON.parse(fs.readFileSync(corpusPath('scanners/semgrep/semgrep__json-owasp-benchmark.json'), 'utf8'));
      const findings = new ScannerOutputNormaliser().findings('sast', { tool: 'semgrep', toolVersion: null, output }, repo);
      expect(findings.length).to.equal(output.results.length);
      for (const f of findings) expect(f.owaspCategories).to.deep.equal(['A03:2017']);
    });

    it('the built-in SAST step reads Semgrep SARIF through the same parser (semgrep-1.69.0.sarif as the step\'s output)', () => {
      const output = JSON.parse(fs.readFileSync(corpusPath('sarif/semgrep/semgrep-1.69.0.sarif'), 'utf8'));
      const findings = new ScannerOutputNormaliser().findings('sast', { tool: 'semgrep', toolVersion: null, output }, repo);
      const tagged = findings.filter((f) => f.owaspCategories);
      expect(tagged.length).to.be.greaterThan(0);
      for (const f of tagged) {
        const want = [...new Set(ruleTags(output, f.ruleId).map(expected))].sort();
        expect(f.owaspCategories, f.ruleId).to.deep.equal(want);
      }
    });
  });
});
