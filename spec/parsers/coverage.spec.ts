import { expect } from 'chai';
import { parseCoverage, type CoverageFigures, type CoverageFormat } from '../../infrastructure/parsers/coverage';
import { corpusAvailable, requireCorpus } from '../support/corpus';
import { expectRefusal, readCorpus, readManifest, verdictOfNote } from './support';
import { coberturaTotals, DECISIONS, jacocoTotals, lcovTotals, linesUnderMethodsOnly, pair } from './coverage-decisions';

const cov = (format: CoverageFormat, text: string): CoverageFigures => parseCoverage(format, Buffer.from(text));

describe('coverage parser', () => {
  describe('corpus: every manifest file gets its expected verdict and independently computed figures', function () {
    before(function () {
      requireCorpus(this.test!.parent!);
    });
    const rows = corpusAvailable() ? readManifest('MANIFEST-reports.tsv').filter((r) => r.file.startsWith('coverage/')) : [];
    for (const row of rows) {
      const format = row.file.split('/')[1] as CoverageFormat;
      const decided = DECISIONS[row.file];
      const verdict = decided?.verdict ?? verdictOfNote(row.note);
      it(`[S1.4.3-13] ${row.file} (${format}) is ${verdict === 'accept' ? 'accepted' : 'refused (400)'}${decided ? ` [${decided.why}]` : ''}`, () => {
        expect(verdict, `no verdict for ${row.file}: add it to DECISIONS`).to.not.equal(undefined);
        const body = readCorpus(row.file);
        if (verdict === 'refuse') {
          expectRefusal(() => parseCoverage(format, body), decided?.pattern);
          return;
        }
        const figures = parseCoverage(format, body);
        const text = body.toString('utf8');
        if (format === 'jacoco') {
          const t = jacocoTotals(text);
          expect([figures.linesCovered, figures.linesTotal]).to.deep.equal(t.lines);
          expect([figures.branchesCovered, figures.branchesTotal]).to.deep.equal(t.branches ? pair(...t.branches) : [null, null]);
          if (figures.packagesState === 'kept') expect(figures.packages).to.have.length((text.match(/<package\b/g) ?? []).length);
        } else if (format === 'cobertura') {
          const t = coberturaTotals(text);
          expect([figures.linesCovered, figures.linesTotal]).to.deep.equal([t.lc, t.lt]);
          expect([figures.branchesCovered, figures.branchesTotal]).to.deep.equal(pair(t.bc, t.bt));
          if (figures.packagesState === 'kept') expect(figures.packages).to.have.length((text.match(/<package\b/g) ?? []).length);
        } else {
          const t = lcovTotals(text);
          expect([figures.linesCovered, figures.linesTotal]).to.deep.equal([t.lc, t.lt]);
          expect([figures.branchesCovered, figures.branchesTotal]).to.deep.equal(pair(t.bc, t.bt));
          expect(figures.packages).to.have.length(t.dirs);
        }
        expect(figures.linesTotal).to.be.above(0);
        if (figures.packagesState === 'kept') {
          const sum = (k: 'linesCovered' | 'linesTotal'): number => figures.packages!.reduce((n, p) => n + p[k], 0);
          expect([sum('linesCovered'), sum('linesTotal')]).to.deep.equal([figures.linesCovered, figures.linesTotal]);
        } else {
          expect(figures.packages).to.equal(null);
        }
      });
    }
    // Without the corpus there are no rows: one test keeps the suite (and its corpus check) visible.
    if (rows.length === 0) it('has manifest rows to check', () => expect(rows).to.not.be.empty);
  });

  describe('corpus: particular files', function () {
    before(function () {
      requireCorpus(this.test!.parent!);
    });
    const file = (f: string): CoverageFigures => parseCoverage(f.split('/')[0] as CoverageFormat, readCorpus(`coverage/${f}`));

    it('[S1.2.6-03] Cobertura figures agree with the summary a sound producer wrote (coverlet, gcovr, Cobertura 2.1.1)', () => {
      for (const [f, lc, lt, bc, bt] of [
        ['cobertura/coverlet__edlib-large.cobertura.xml', 1212, 1460, 262, 378],
        ['cobertura/gcovr-5.0.cobertura.xml', 345, 572, 100, 252],
        ['cobertura/cobertura-2.1.1__java.cobertura.xml', 24, 36, 1, 4],
      ] as const) {
        expect(file(f), f).to.deep.include({ linesCovered: lc, linesTotal: lt, branchesCovered: bc, branchesTotal: bt });
      }
    });

    it('[S1.2.6-04] JaCoCo without BRANCH counters: branches are null, never 0 of 0', () => {
      expect(file('jacoco/madrapps__math-no-branch.jacoco.xml')).to.deep.include({ branchesCovered: null, branchesTotal: null });
    });

    it('the one-line JaCoCo twin gives the same figures as the pretty-printed one', () => {
      expect(file('jacoco/coveralls__jacoco-oneline.xml')).to.deep.equal(file('jacoco/coveralls__jacoco-report.xml'));
    });

    it('[S1.4.3-45] JaCoCo aggregate: packages inside <group> modules are found', () => {
      const f = file('jacoco/vscode-coverage-gutters__multimodule-aggregate.jacoco.xml');
      expect(f.packagesState).to.equal('kept');
      expect(f.packages!.map((p) => p.linesTotal).reduce((a, b) => a + b)).to.equal(15);
    });

    it('[S1.4.3-50] JaCoCo aggregate whose modules do not add up to the report counters is inconsistent, and still accepted', () => {
      const f = file('jacoco/madrapps__empty-aggregate.jacoco.xml');
      expect(f).to.deep.include({ packagesState: 'inconsistent', packages: null, linesCovered: 7593, linesTotal: 9823 });
    });

    it('[S1.2.6-05] Cobertura names its tool version; JaCoCo and lcov do not', () => {
      expect(file('cobertura/gcovr-5.0.cobertura.xml').toolVersion).to.equal('gcovr 5.0');
      expect(file('cobertura/codacy__decimal-comma.cobertura.xml').toolVersion).to.equal(null);
      expect(file('jacoco/madrapps__report.jacoco.xml').toolVersion).to.equal(null);
      expect(file('lcov/istanbul__typescript.lcov').toolVersion).to.equal(null);
    });

    it('Cobertura with decimal-comma rates: figures come from the lines (8 of 9), not the rates', () => {
      expect(file('cobertura/codacy__decimal-comma.cobertura.xml')).to.deep.include({ linesCovered: 8, linesTotal: 9 });
    });

    it('lcov: Istanbul repeating a file in 94 records is merged, not summed 94 times', () => {
      expect(file('lcov/istanbul__node-example.lcov.info')).to.deep.include({ linesCovered: 42, linesTotal: 46 });
    });

    it('[S1.4.3-47] lcov packages are the directories holding SF files', () => {
      const names = file('lcov/gcovr__dot-folder-gcc14.lcov').packages!.map((p) => p.name).sort();
      expect(names).to.deep.equal(['tests/dot-folder/output/.subdir/A', 'tests/dot-folder/output/.subdir/A/C', 'tests/dot-folder/output/.subdir/A/C/D', 'tests/dot-folder/output/.subdir/B'].sort());
    });

    const acceptedCobertura = (): string[] =>
      readManifest('MANIFEST-reports.tsv')
        .filter((r) => r.file.startsWith('coverage/cobertura/') && (DECISIONS[r.file]?.verdict ?? verdictOfNote(r.note)) === 'accept')
        .map((r) => r.file);

    it('[S1.2.6-03] [S1.4.3-46] every accepted Cobertura report rewritten with its lines under methods only reads the figures of its class lines', () => {
      const files = acceptedCobertura();
      expect(files).to.have.length.above(10);
      for (const f of files) {
        const original = readCorpus(f).toString('utf8');
        const rewritten = linesUnderMethodsOnly(original);
        // The rewrite left no class-level line (the independent count sees none) and moved every one.
        expect(coberturaTotals(rewritten).lt, f).to.equal(0);
        const t = coberturaTotals(original);
        const figures = parseCoverage('cobertura', Buffer.from(rewritten));
        expect([figures.linesCovered, figures.linesTotal, figures.branchesCovered, figures.branchesTotal], f).to.deep.equal([t.lc, t.lt, ...pair(t.bc, t.bt)]);
        expect(figures, f).to.deep.equal(parseCoverage('cobertura', readCorpus(f)));
      }
    });

    it('[S1.2.6-03] a Cobertura report whose classes have their own lines reads the same figures with or without its <methods>', () => {
      let withMethods = 0;
      for (const f of acceptedCobertura()) {
        const original = readCorpus(f).toString('utf8');
        const bare = original.replace(/<methods\b[^>]*>[\s\S]*?<\/methods>/g, '');
        if (bare !== original) withMethods++;
        expect(parseCoverage('cobertura', Buffer.from(bare)), f).to.deep.equal(parseCoverage('cobertura', readCorpus(f)));
      }
      expect(withMethods).to.be.above(5);
    });

    it('[S1.4.3-13] a Cobertura report declared as JaCoCo is refused, and the reverse', () => {
      expectRefusal(() => parseCoverage('jacoco', readCorpus('coverage/cobertura/gcovr-5.0.cobertura.xml')), /not a JaCoCo report/);
      expectRefusal(() => parseCoverage('cobertura', readCorpus('coverage/jacoco/madrapps__report.jacoco.xml')), /not a Cobertura report/);
      expectRefusal(() => parseCoverage('lcov', readCorpus('coverage/jacoco/madrapps__report.jacoco.xml')), /not an lcov record/);
      expectRefusal(() => parseCoverage('jacoco', readCorpus('coverage/lcov/istanbul__typescript.lcov')), /not well-formed XML/);
    });
  });

  describe('rules', () => {
    const jacoco = (inner: string, report = ''): string =>
      `<?xml version="1.0"?><!DOCTYPE report PUBLIC "-//JACOCO//DTD Report 1.1//EN" "report.dtd"><report name="r">${inner}${report}</report>`;
    const counter = (type: string, missed: number, covered: number): string => `<counter type="${type}" missed="${missed}" covered="${covered}"/>`;
    const pkg = (name: string, lm: number, lc: number, extra = ''): string => `<package name="${name}">${counter('LINE', lm, lc)}${extra}</package>`;
    const lcov = (files: Array<[string, number, number]>): string => files.map(([sf, lh, lf]) => `SF:${sf}\nLF:${lf}\nLH:${lh}\nend_of_record\n`).join('');

    it('[S1.7-21] an unknown format is refused', () => {
      expectRefusal(() => parseCoverage('clover' as CoverageFormat, Buffer.from('<coverage/>')), /not one of jacoco, cobertura, lcov/);
    });

    it('[S1.4.3-36] an empty report is refused, never recorded as zero', () => {
      expectRefusal(() => cov('jacoco', jacoco('', counter('LINE', 0, 0))), /counts no line/);
      expectRefusal(() => cov('cobertura', '<coverage version="1"><packages><package name="p"><classes/></package></packages></coverage>'), /counts no line/);
      expectRefusal(() => cov('lcov', 'TN:\n'), /counts no line/);
      expectRefusal(() => cov('lcov', 'SF:a.c\nLF:0\nLH:0\nend_of_record\n'), /counts no line/);
    });

    it('[S1.2.6-04] a BRANCH counter of 0 of 0 reads as null', () => {
      expect(cov('jacoco', jacoco(pkg('p', 1, 1), counter('LINE', 1, 1) + counter('BRANCH', 0, 0)))).to.deep.include({ branchesCovered: null, branchesTotal: null });
      expect(cov('lcov', 'SF:a.c\nLF:2\nLH:1\nBRF:0\nBRH:0\nend_of_record\n')).to.deep.include({ branchesCovered: null, branchesTotal: null });
    });

    it('[S1.2.6-03] [S1.4.3-45] JaCoCo totals are the report counters, packages each package element', () => {
      const f = cov('jacoco', jacoco(`<group name="g">${pkg('a', 1, 3, counter('BRANCH', 1, 1))}</group>${pkg('b', 2, 2)}`, counter('LINE', 3, 5) + counter('BRANCH', 1, 1)));
      expect(f).to.deep.equal({
        linesCovered: 5,
        linesTotal: 8,
        branchesCovered: 1,
        branchesTotal: 2,
        toolVersion: null,
        packagesState: 'kept',
        packages: [
          { name: 'a', linesCovered: 3, linesTotal: 4, branchesCovered: 1, branchesTotal: 2 },
          { name: 'b', linesCovered: 2, linesTotal: 4, branchesCovered: null, branchesTotal: null },
        ],
      });
    });

    it('[S1.4.3-46] Cobertura packages are counted from the lines of their classes, method lines not counted twice', () => {
      const f = cov(
        'cobertura',
        `<coverage version="9"><packages><package name="p"><classes><class name="C" filename="p/C.java">
           <methods><method name="m"><lines><line number="1" hits="1"/></lines></method></methods>
           <lines><line number="1" hits="1"/><line number="2" hits="0" branch="true" condition-coverage="50% (1/2)"/></lines>
         </class></classes></package></packages></coverage>`,
      );
      expect(f).to.deep.include({ linesCovered: 1, linesTotal: 2, branchesCovered: 1, branchesTotal: 2, toolVersion: '9', packagesState: 'kept' });
      expect(f.packages).to.deep.equal([{ name: 'p', linesCovered: 1, linesTotal: 2, branchesCovered: 1, branchesTotal: 2 }]);
    });

    it('[S1.4.3-36] [S1.4.3-46] a Cobertura class listing its lines only under methods counts them, each line number once', () => {
      const f = cov(
        'cobertura',
        `<coverage version="9"><packages><package name="p"><classes>
           <class name="C" filename="p/C.java"><methods>
             <method name="a"><lines><line number="1" hits="0"/><line number="2" hits="0" branch="true" condition-coverage="0% (0/2)"/></lines></method>
             <method name="b"><lines><line number="2" hits="3" branch="true" condition-coverage="50% (1/2)"/><line number="3" hits="1"/></lines></method>
           </methods><lines/></class>
           <class name="D" filename="p/D.java"><methods><method name="d"><lines><line number="1" hits="1"/></lines></method></methods></class>
         </classes></package></packages></coverage>`,
      );
      expect(f).to.deep.include({ linesCovered: 3, linesTotal: 4, branchesCovered: 1, branchesTotal: 2 });
      expect(f.packages).to.deep.equal([{ name: 'p', linesCovered: 3, linesTotal: 4, branchesCovered: 1, branchesTotal: 2 }]);
    });

    it('[S1.4.3-13] garbage hits on a method line that is counted refuse the report', () => {
      const doc = '<coverage><packages><package name="p"><classes><class name="C"><methods><method name="m"><lines><line number="1" hits="x"/></lines></method></methods></class></classes></package></packages></coverage>';
      expectRefusal(() => cov('cobertura', doc), /hits "x"/);
    });

    it('Cobertura hits with a decimal comma are read; garbage hits refuse the report', () => {
      const doc = (hits: string): string => `<coverage><packages><package name="p"><classes><class name="C"><lines><line number="1" hits="${hits}"/><line number="2" hits="0"/></lines></class></classes></package></packages></coverage>`;
      expect(cov('cobertura', doc('1,0')).linesCovered).to.equal(1);
      expect(cov('cobertura', doc('0,0')).linesCovered).to.equal(0);
      expectRefusal(() => cov('cobertura', doc('-1')), /hits/);
      expectRefusal(() => cov('cobertura', doc('many')), /hits/);
    });

    it('[S1.4.3-13] lcov negative, garbage and impossible counts refuse the report', () => {
      expectRefusal(() => cov('lcov', 'SF:a.c\nDA:1,-3\nend_of_record\n'), /DA:1,-3/);
      expectRefusal(() => cov('lcov', 'SF:a.c\nDA:1,1.a0e+19\nend_of_record\n'), /DA:1,1\.a0e\+19/);
      expectRefusal(() => cov('lcov', 'SF:a.c\nBRDA:1,0,0,-1\nDA:1,1\nend_of_record\n'), /BRDA/);
      expectRefusal(() => cov('lcov', 'SF:a.c\nLF:2\nLH:3\nend_of_record\n'), /more covered than coverable/);
      expectRefusal(() => cov('lcov', 'SF:a.c\nLF:x\nend_of_record\n'), /LF:x/);
    });

    it('lcov without LF counts DA lines; CRLF endings, comments and unknown records are fine', () => {
      const f = cov('lcov', 'TN:t\r\n# comment\r\nSF:src/a.c\r\nVER:abc\r\nDA:1,0\r\nDA:2,5,md5\r\nDA:2,0\r\nBRDA:1,0,0,1\r\nBRDA:1,0,1,-\r\nMCDC:1,2,t,0,0,x\r\nend_of_record');
      expect(f).to.deep.include({ linesCovered: 1, linesTotal: 2, branchesCovered: 1, branchesTotal: 2 });
    });

    it('[S1.4.3-47] lcov packages are directories; Windows backslashes become slashes', () => {
      const f = cov('lcov', lcov([['src\\a\\x.c', 1, 2], ['src/a/y.c', 1, 1], ['top.c', 0, 1]]));
      expect(f.packages!.map((p) => [p.name, p.linesCovered, p.linesTotal])).to.deep.equal([['src/a', 2, 3], ['', 0, 1]]);
    });

    it('[S1.4.3-48] more than 10,000 packages gives too_many and keeps no package; 10,000 is kept', () => {
      const files = (n: number): Array<[string, number, number]> => Array.from({ length: n }, (_, i) => [`d${i}/f.c`, 1, 1]);
      expect(cov('lcov', lcov(files(10_001)))).to.deep.include({ packagesState: 'too_many', packages: null, linesTotal: 10_001 });
      const kept = cov('lcov', lcov(files(10_000)));
      expect(kept.packagesState).to.equal('kept');
      expect(kept.packages).to.have.length(10_000);
    });

    it('[S1.4.3-49] a package path over 1,000 characters or with a control character gives path_refused', () => {
      expect(cov('lcov', lcov([[`${'d'.repeat(1001)}/f.c`, 1, 1]]))).to.deep.include({ packagesState: 'path_refused', packages: null });
      expect(cov('lcov', lcov([[`${'d'.repeat(1000)}/f.c`, 1, 1]])).packagesState).to.equal('kept');
      expect(cov('jacoco', jacoco(pkg('a&#9;b', 0, 1), counter('LINE', 0, 1))).packagesState).to.equal('path_refused');
      expect(cov('jacoco', jacoco(pkg('a&#127;b', 0, 1), counter('LINE', 0, 1))).packagesState).to.equal('path_refused');
      expect(cov('jacoco', jacoco(pkg('a&#133;b', 0, 1), counter('LINE', 0, 1))).packagesState, 'a C1 control (U+0085)').to.equal('path_refused');
      expect(cov('lcov', lcov([['a\u0000b/f.c', 1, 1]])).packagesState, 'a NUL in an lcov path').to.equal('path_refused');
    });

    it('[S1.4.3-50] [S1.2.6-09] [S1.4.3-51] package counts not adding up give inconsistent, no packages, and the report is accepted', () => {
      const f = cov('jacoco', jacoco(pkg('a', 1, 1), counter('LINE', 1, 5)));
      expect(f).to.deep.include({ packagesState: 'inconsistent', packages: null, linesCovered: 5, linesTotal: 6 });
      const branches = cov('jacoco', jacoco(pkg('a', 1, 1), counter('LINE', 1, 1) + counter('BRANCH', 1, 1)));
      expect(branches.packagesState).to.equal('inconsistent');
    });

    it('[S1.4.3-38] XML coverage readers refuse entity declarations (XXE, billion laughs) without expanding them', () => {
      const xxe = `<?xml version="1.0"?><!DOCTYPE report [<!ENTITY x SYSTEM "file:///etc/passwd">]><report name="&x;">${counter('LINE', 0, 1)}</report>`;
      expectRefusal(() => cov('jacoco', xxe), /declares entities/);
      const laughs = `<!DOCTYPE coverage [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><coverage version="&c;"/>`;
      expectRefusal(() => cov('cobertura', laughs), /declares entities/);
      expectRefusal(() => cov('cobertura', '<coverage version="&undeclared;"/>'), /undefined entity/);
    });

    it('[S1.4.3-13] bodies that are not readable as the declared format are refused', () => {
      expectRefusal(() => cov('jacoco', '{"not": "xml"}'), /not well-formed XML/);
      expectRefusal(() => cov('cobertura', ''), /not well-formed XML/);
      expectRefusal(() => cov('lcov', '<?xml version="1.0"?><report/>'), /not an lcov record/);
      expectRefusal(() => cov('jacoco', jacoco('', '<counter type="LINE" missed="x" covered="1"/>')), /missed="x"/);
    });
  });
});
