import { expect } from 'chai';
import { ImportRefusal } from '../../domain/imports/import-refusal';
import { toolLabel } from '../../domain/imports/reports';
import { normalisePath, parseSarif, type SarifParseResult } from '../../infrastructure/parsers/sarif';
import { corpusAvailable, requireCorpus } from '../support/corpus';
import { expectRefusal, readCorpus, readManifest, verdictOfNote } from './support';
import { DECISIONS, independent } from './sarif-decisions';

type Json = Record<string, any>;

/** A minimal valid log with one run; tests change what they need. */
function log(run: Json = {}, top: Json = {}): string {
  return JSON.stringify({
    version: '2.1.0',
    runs: [{ tool: { driver: { name: 'Tool', version: '1.0' } }, results: [], ...run }],
    ...top,
  });
}
const result = (extra: Json = {}): Json => ({ ruleId: 'R1', message: { text: 'm' }, ...extra });
const at = (uri: string, extra: Json = {}): Json => ({ locations: [{ physicalLocation: { artifactLocation: { uri, ...extra }, region: { startLine: 3 } } }] });
const one = (r: Json, run: Json = {}): SarifParseResult => parseSarif(log({ results: [r], ...run }));

describe('SARIF parser', () => {
  describe('corpus: every manifest file gets its expected verdict', function () {
    before(function () {
      requireCorpus(this.test!.parent!);
    });
    const rows = corpusAvailable()
      ? [
          ...readManifest('sarif/MANIFEST.tsv').map((r) => ({ ...r, file: `sarif/${r.file}` })),
          ...readManifest('MANIFEST-reports.tsv').filter((r) => r.file.endsWith('.sarif')),
        ]
      : [];
    for (const row of rows) {
      const decided = DECISIONS[row.file];
      const verdict = decided?.verdict ?? verdictOfNote(row.note);
      it(`${row.file} is ${verdict === 'accept' ? 'accepted' : 'refused (400)'}${decided ? ` [${decided.why}]` : ''}`, () => {
        expect(verdict, `no verdict for ${row.file}: add it to DECISIONS`).to.not.equal(undefined);
        const body = readCorpus(row.file);
        if (verdict === 'refuse') {
          expectRefusal(() => parseSarif(body), decided?.pattern);
          return;
        }
        const parsed = parseSarif(body);
        const expected = independent(body.toString('utf8'));
        expect(parsed.resultsCount).to.equal(expected.results);
        expect(parsed.runs.map((r) => r.findings.length)).to.deep.equal(expected.findings);
        expect(parsed.runs.map(toolLabel)).to.deep.equal(expected.tools);
        for (const f of parsed.runs.flatMap((r) => r.findings)) {
          expect(f.path).to.not.match(/^\/|\\|(^|\/)\.\.?(\/|$)|^[a-z][a-z0-9+.-]*:/i);
          expect(['critical', 'high', 'medium', 'low']).to.include(f.severity);
          expect(f.ruleId).to.be.a('string').and.not.equal('');
          expect(f.message).to.be.a('string').and.not.equal('');
        }
      });
    }
    // Without the corpus there are no rows: one test keeps the suite (and its corpus check) visible.
    if (rows.length === 0) it('has manifest rows to check', () => expect(rows).to.not.be.empty);
  });

  describe('corpus: figures of particular files', function () {
    before(function () {
      requireCorpus(this.test!.parent!);
    });
    const parse = (file: string): SarifParseResult => parseSarif(readCorpus(`sarif/${file}`));

    it('[S1.4.3-27] CodeQL C#: severities follow the rules\' security-severity, computed independently', () => {
      const text = readCorpus('sarif/codeql/codeql-2.24.1-csharp.sarif').toString('utf8');
      const run = JSON.parse(text).runs[0];
      const expected = run.results.map((r: Json) => {
        const rule = run.tool.driver.rules[r.ruleIndex];
        const score = Number(rule.properties?.['security-severity']);
        if (!Number.isNaN(score)) return score >= 9 ? 'critical' : score >= 7 ? 'high' : score >= 4 ? 'medium' : 'low';
        const level = r.level ?? rule.defaultConfiguration?.level ?? 'warning';
        return level === 'error' ? 'high' : level === 'warning' ? 'medium' : 'low';
      });
      expect(parse('codeql/codeql-2.24.1-csharp.sarif').runs[0].findings.map((f) => f.severity)).to.deep.equal(expected);
    });

    it('[S1.4.3-27] Cppcheck: a numeric security-severity of 9.x is critical', () => {
      expect(parse('cppcheck/cppcheck-2.17.1-many.sarif').runs[0].findings[0].severity).to.equal('critical');
    });

    it('[S1.4.3-29] detekt: level absent falls back to the rule defaultConfiguration level', () => {
      const [a, b, c] = parse('detekt/detekt-vanilla.sarif').runs[0].findings;
      expect([a.severity, b.severity, c.severity]).to.deep.equal(['high', 'medium', 'low']);
    });

    it('[S1.4.3-31] suppressions tutorial: only results without an accepted suppression are findings', () => {
      const findings = parse('sarif-tutorials/suppressions.sarif').runs[0].findings;
      // The tutorial calls its last case hidden (underReview + rejected); Vigil's rule is "an
      // accepted suppression", and neither of those is accepted, so it stays a finding.
      expect(findings.map((f) => f.message)).to.deep.equal([
        'This result is visible because it is not suppressed.',
        'This result is visible because its suppression was rejected.',
        'This result is visible because its suppression is still under review.',
        'This result is hidden because at least one suppression has not yet been rejected (it is still under review).',
      ]);
      expect(findings.every((f) => f.path === '' && f.line === null)).to.equal(true);
    });

    it('[S1.4.3-30] BinSkim: pass results are not findings; message.id is filled from the rule messageStrings', () => {
      const parsed = parse('binskim/binskim-native-x86-vs2013.sarif');
      expect(parsed.resultsCount).to.equal(21);
      expect(parsed.runs[0].findings).to.have.length(7);
      for (const f of parsed.runs[0].findings) expect(f.message).to.not.match(/\{\d+\}/).and.not.equal(f.ruleId);
    });

    it('[S1.4.3-30] KICS: the kind pass result is dropped, the two fail results stay', () => {
      expect(parse('kics/kics-development.sarif').runs[0].findings).to.have.length(2);
    });

    it('[S1.4.3-23] Fortify: ruleIndex without ruleId names the rule; artifactLocation by index names the file', () => {
      const [f] = parse('fortify-fpr/fortify-fpr-one-result.sarif').runs[0].findings;
      expect(f).to.include({ ruleId: '31D4607A-A3FF-447C-908A-CA2BBE4CE4B7', path: 'Helpers/InvoiceHelper.cs', line: 57 });
    });

    it('[S1.2.3-08] originalUriBaseIds chain: SRCROOT relative to REPOROOT prefixes src/, "." is the repository', () => {
      expect(parse('sarif-tutorials/original-uri-base-ids.sarif').runs[0].findings.map((f) => f.path)).to.deep.equal(['README.md', 'src/io/kb.c', '']);
    });

    it('[S1.2.3-08] InspectCode: an absolute base is the checkout root; percent-encoding is decoded', () => {
      expect(parse('inspectcode/inspectcode-2024.2-file-uri-srcroot.sarif').runs[0].findings.map((f) => f.path)).to.deep.equal([
        'whatever/€path.cs',
        'this/dir/file.cs',
      ]);
    });

    it('[S1.4.3-31] SARIF spec appendix K: the accepted external suppression leaves no finding', () => {
      const parsed = parse('spec-examples/appendix-k-comprehensive.sarif');
      expect(parsed.resultsCount).to.equal(1);
      expect(parsed.runs[0].findings).to.deep.equal([]);
    });

    it('[S1.4.3-03] CodeQL action log: one "name version" per run', () => {
      expect(parse('codeql/codeql-action-valid-two-runs.sarif').runs.map(toolLabel)).to.deep.equal([
        'LGTM.com 1.24.0-SNAPSHOT',
        'CodeQL command-line toolchain 2.0.0',
      ]);
    });

    it('[S1.4.3-24] CodeQL C#: related locations in library files outside the tree do not refuse the report', () => {
      expect(() => parse('codeql/codeql-2.24.1-csharp.sarif')).to.not.throw();
    });
  });

  describe('document rules', () => {
    it('[S1.4.3-19] SARIF 2.0.0 is refused with a sentence naming the version', () => {
      const e = expectRefusal(() => parseSarif(JSON.stringify({ version: '2.0.0', runs: [] })));
      expect(e.message).to.equal('The SARIF log declares version 2.0.0; only SARIF 2.1.0 is accepted.');
    });

    it('[S1.4.3-19] a log without version, a JSON array, and unreadable JSON are refused', () => {
      expectRefusal(() => parseSarif(JSON.stringify({ runs: [] })), /no version/);
      expectRefusal(() => parseSarif('[]'), /not a SARIF log/);
      expectRefusal(() => parseSarif('{"version": "2.1.0",'), /not readable as JSON/);
      expectRefusal(() => parseSarif(Buffer.from([0xff, 0xfe, 0x00, 0xd8])), /./);
    });

    it('accepts a UTF-8 byte-order mark and a string body', () => {
      expect(parseSarif(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(log())])).runs).to.have.length(1);
      expect(parseSarif(log()).resultsCount).to.equal(0);
    });

    it('[S1.4.3-20] runs null, runs missing and no run at all are refused', () => {
      expectRefusal(() => parseSarif(JSON.stringify({ version: '2.1.0', runs: null })), /no "runs" array/);
      expectRefusal(() => parseSarif(JSON.stringify({ version: '2.1.0' })), /no "runs" array/);
      expectRefusal(() => parseSarif(JSON.stringify({ version: '2.1.0', runs: [] })), /no run/);
    });

    it('[S1.4.3-20] a run must name tool.driver.name', () => {
      expectRefusal(() => parseSarif(log({ tool: { driver: {} } })), /tool\.driver\.name/);
      expectRefusal(() => parseSarif(log({ tool: { driver: { name: '  ' } } })), /tool\.driver\.name/);
      expectRefusal(() => parseSarif(log({ tool: undefined })), /tool\.driver\.name/);
    });

    it('[S1.4.3-20] an empty results array is zero findings, not a refusal', () => {
      const parsed = parseSarif(log({ results: [] }));
      expect(parsed.runs[0].findings).to.deep.equal([]);
      expect(parsed.resultsCount).to.equal(0);
    });

    it('[S1.4.3-21] a run without a results array (absent or null) is refused', () => {
      expectRefusal(() => parseSarif(log({ results: undefined })), /no results array/);
      expectRefusal(() => parseSarif(log({ results: null })), /no results array/);
    });

    it('[S1.4.3-22] an invocation with executionSuccessful false refuses the whole import, even with results', () => {
      const run = { invocations: [{ executionSuccessful: true }, { executionSuccessful: false }], results: [result()] };
      expectRefusal(() => parseSarif(log(run)), /failed execution/);
    });

    it('[S1.4.3-22] a failed run refuses the log even when another run is fine', () => {
      const text = JSON.stringify({
        version: '2.1.0',
        runs: [
          { tool: { driver: { name: 'A' } }, results: [] },
          { tool: { driver: { name: 'B' } }, results: [], invocations: [{ executionSuccessful: false }] },
        ],
      });
      expectRefusal(() => parseSarif(text), /Run 2 \(B\)/);
    });

    it('[S1.4.3-32] [S1.7-20] externalPropertyFileReferences on a run is refused', () => {
      expectRefusal(() => parseSarif(log({ externalPropertyFileReferences: { results: [{ location: { uri: 'x.sarif-external-properties' } }] } })), /external property files/);
    });

    it('[S1.4.3-32] [S1.7-20] inlineExternalProperties on the log is refused', () => {
      expectRefusal(() => parseSarif(log({}, { inlineExternalProperties: [{ results: [] }] })), /inlineExternalProperties/);
    });
  });

  describe('rules of results', () => {
    it('[S1.4.3-23] a result naming no rule refuses the report', () => {
      expectRefusal(() => one({ message: { text: 'm' } }), /names no rule/);
      expectRefusal(() => one({ ruleId: '', message: { text: 'm' } }), /names no rule/);
    });

    it('[S1.4.3-23] a ruleIndex pointing past the rules is no rule', () => {
      expectRefusal(() => one({ ruleIndex: 3, message: { text: 'm' } }, { tool: { driver: { name: 'T', rules: [{ id: 'A' }] } } }), /names no rule/);
    });

    it('[S1.4.3-23] rule.id, ruleIndex and rule.index into an extension all name the rule', () => {
      expect(one({ rule: { id: 'X1' }, message: { text: 'm' } }).runs[0].findings[0].ruleId).to.equal('X1');
      const tool = { driver: { name: 'T', rules: [{ id: 'D0' }, { id: 'D1' }] }, extensions: [{ name: 'pack', rules: [{ id: 'E0' }] }] };
      expect(one({ ruleIndex: 1, message: { text: 'm' } }, { tool }).runs[0].findings[0].ruleId).to.equal('D1');
      const viaExtension = one({ rule: { index: 0, toolComponent: { index: 0 } }, message: { text: 'm' } }, { tool });
      expect(viaExtension.runs[0].findings[0].ruleId).to.equal('E0');
    });

    it('[S1.4.3-23] a pass result without a rule still refuses: every result names a rule', () => {
      expectRefusal(() => one({ kind: 'pass', message: { text: 'm' } }), /names no rule/);
    });

    describe('rule references into tool extensions (SARIF 2.1.0 §3.27.7, §3.52-3.54)', () => {
      const G_EXT = '2f1b7c1e-8d7a-4a53-9d3c-0c7a3f1e5b21';
      const G_RULE = '9a0e3b52-6f4c-4e1d-8b2a-7c5d1e3f4a60';
      // The driver holds a rule with the same id as the extension's, scored differently: a finding
      // whose severity is "low" was read from the driver, "critical" from the extension.
      const tool = {
        driver: { name: 'T', rules: [{ id: 'X1', properties: { 'security-severity': '1.0' } }] },
        extensions: [
          { name: 'other-pack', rules: [{ id: 'O1' }] },
          {
            name: 'security-pack', guid: G_EXT.toUpperCase(), globalMessageStrings: { pack: { text: 'pack says {0}' } },
            rules: [{ id: 'Y0' }, { id: 'X1', guid: G_RULE, properties: { 'security-severity': '9.5' }, messageStrings: { default: { text: '{0} is weak' } } }],
          },
        ],
      };
      const finding = (rule: Json, extra: Json = {}) => one({ rule, message: { id: 'default', arguments: ['MD5'] }, ...extra }, { tool }).runs[0].findings[0];

      it('[S1.4.3-23] [S1.4.3-27] names the extension by index, by guid (any case) or by name; the descriptor is the extension\'s', () => {
        for (const toolComponent of [{ index: 1 }, { guid: G_EXT }, { name: 'security-pack' }]) {
          const f = finding({ index: 1, toolComponent });
          expect(f, JSON.stringify(toolComponent)).to.include({ ruleId: 'X1', severity: 'critical', message: 'MD5 is weak' });
        }
      });

      it('[S1.4.3-23] ruleIndex counts in the component rule.toolComponent names', () => {
        expect(one({ ruleIndex: 1, rule: { toolComponent: { name: 'security-pack' } }, message: { text: 'm' } }, { tool }).runs[0].findings[0]).to.include({ ruleId: 'X1', severity: 'critical' });
      });

      it('[S1.4.3-23] a rule named by its guid alone, with or without its component', () => {
        expect(finding({ guid: G_RULE, toolComponent: { index: 1 } })).to.include({ ruleId: 'X1', severity: 'critical', message: 'MD5 is weak' });
        expect(finding({ guid: G_RULE.toUpperCase() })).to.include({ ruleId: 'X1', severity: 'critical' });
      });

      it('[S1.4.3-27] ruleId with a component reference takes the component\'s descriptor, not the driver\'s rule of that id', () => {
        expect(one({ ruleId: 'X1', rule: { id: 'X1', toolComponent: { name: 'security-pack' } }, message: { text: 'm' } }, { tool }).runs[0].findings[0].severity).to.equal('critical');
        expect(one({ ruleId: 'X1', message: { text: 'm' } }, { tool }).runs[0].findings[0].severity).to.equal('low');
      });

      it('message.id falls back to the component\'s globalMessageStrings', () => {
        expect(one({ rule: { index: 0, toolComponent: { index: 1 } }, message: { id: 'pack', arguments: ['hi'] } }, { tool }).runs[0].findings[0].message).to.equal('pack says hi');
      });

      it('[S1.4.3-23] a reference that leads nowhere and no ruleId refuses the report, saying what did not match', () => {
        const refused = (rule: Json) => expectRefusal(() => finding(rule), /names no rule/).message;
        expect(refused({ index: 0, toolComponent: { index: 7 } })).to.match(/rule\.toolComponent \(index 7\) matches no component of the tool \(the driver and 2 extensions/);
        expect(refused({ index: 0, toolComponent: { guid: G_RULE } })).to.contain(`guid "${G_RULE}"`);
        expect(refused({ index: 0, toolComponent: { name: 'no-such-pack' } })).to.contain('name "no-such-pack"');
        expect(refused({ index: 5, toolComponent: { index: 1 } })).to.contain('rule index 5 is outside the 2 rules of the extension "security-pack"');
        expect(refused({ guid: '00000000-0000-4000-8000-000000000000' })).to.contain('rule.guid 00000000-0000-4000-8000-000000000000 matches no rule');
      });

      it('[S1.4.3-23] a result with a ruleId still counts when its component reference leads nowhere', () => {
        expect(one({ ruleId: 'X1', rule: { toolComponent: { index: 9 } }, message: { text: 'm' } }, { tool }).runs[0].findings[0].ruleId).to.equal('X1');
      });
    });
  });

  describe('severity', () => {
    const sev = (r: Json, rules?: Json[]): string =>
      one(result(r), rules ? { tool: { driver: { name: 'T', rules } } } : {}).runs[0].findings[0].severity;

    it('[S1.4.3-27] security-severity on the result maps 9+ critical, 7+ high, 4+ medium, above 0 low, 0 low', () => {
      const cases: Array<[unknown, string]> = [[10, 'critical'], ['9.0', 'critical'], [8.9, 'high'], ['7', 'high'], [6.9, 'medium'], [4, 'medium'], [3.9, 'low'], [0.1, 'low'], [0, 'low'], ['none', 'low']];
      for (const [score, expected] of cases) expect(sev({ level: 'error', properties: { 'security-severity': score } }), String(score)).to.equal(expected);
    });

    it('[S1.4.3-27] the result\'s score wins over its rule\'s, and the rule\'s over level', () => {
      const rules = [{ id: 'R1', properties: { 'security-severity': '9.8' }, defaultConfiguration: { level: 'note' } }];
      expect(sev({ properties: { 'security-severity': '5.0' } }, rules)).to.equal('medium');
      expect(sev({ level: 'note' }, rules)).to.equal('critical');
    });

    it('[S1.4.3-27] a score that is not a number is ignored and level decides', () => {
      expect(sev({ level: 'error', properties: { 'security-severity': 'HIGH' } })).to.equal('high');
    });

    it('[S1.4.3-28] level error high, warning medium, note low, none low', () => {
      expect(['error', 'warning', 'note', 'none'].map((level) => sev({ level }))).to.deep.equal(['high', 'medium', 'low', 'low']);
    });

    it('[S1.4.3-29] without level the rule\'s defaultConfiguration.level applies, else warning (medium)', () => {
      expect(sev({}, [{ id: 'R1', defaultConfiguration: { level: 'error' } }])).to.equal('high');
      expect(sev({})).to.equal('medium');
    });
  });

  describe('findings', () => {
    it('[S1.4.3-30] kind pass and notApplicable are not findings; fail, open and review are', () => {
      const results = ['pass', 'notApplicable', 'fail', 'open', 'review', undefined].map((kind) => result({ kind }));
      const parsed = parseSarif(log({ results }));
      expect(parsed.resultsCount).to.equal(6);
      expect(parsed.runs[0].findings).to.have.length(4);
    });

    it('[S1.4.3-31] an accepted or status-less suppression hides a result; underReview and rejected do not', () => {
      const results = [
        result({ suppressions: [{ kind: 'inSource' }] }),
        result({ suppressions: [{ kind: 'external', status: 'accepted' }] }),
        result({ suppressions: [{ kind: 'external', status: 'underReview' }] }),
        result({ suppressions: [{ kind: 'external', status: 'rejected' }] }),
        result({ suppressions: [{ kind: 'external', status: 'rejected' }, { kind: 'external', status: 'accepted' }] }),
        result({ suppressions: [] }),
      ];
      expect(parseSarif(log({ results })).runs[0].findings).to.have.length(3);
    });

    it('a result without any location is a repository-level finding (path "", line null)', () => {
      expect(one(result()).runs[0].findings[0]).to.deep.include({ path: '', line: null });
    });

    it('keeps path, line, message and the first fingerprint', () => {
      const f = one(result({ ...at('src/a.c'), fingerprints: { 'v1': 'abc' } })).runs[0].findings[0];
      expect(f).to.deep.equal({ ruleId: 'R1', path: 'src/a.c', line: 3, severity: 'medium', message: 'm', fingerprint: 'abc' });
    });

    it('message.id is looked up in the rule messageStrings with its arguments', () => {
      const tool = { driver: { name: 'T', rules: [{ id: 'R1', messageStrings: { default: { text: '{0} is {1}.' } } }] } };
      const f = one({ ruleId: 'R1', message: { id: 'default', arguments: ['x', 'bad'] } }, { tool }).runs[0].findings[0];
      expect(f.message).to.equal('x is bad.');
    });
  });

  describe('locations', () => {
    const pathOf = (uri: string, extra: Json = {}, run: Json = {}): string => one(result(at(uri, extra)), run).runs[0].findings[0].path;

    it('[S1.4.3-24] an absolute POSIX location refuses the whole report', () => {
      expectRefusal(() => pathOf('/home/ci/src/a.c'), /absolute path/);
    });

    it('[S1.4.3-24] absolute Windows and UNC locations refuse the whole report', () => {
      expectRefusal(() => pathOf('C:\\work\\a.c'), /absolute Windows path/);
      expectRefusal(() => pathOf('c:/work/a.c'), /absolute Windows path/);
      expectRefusal(() => pathOf('\\\\server\\share\\a.c'), /absolute path/);
    });

    it('[S1.4.3-26] a URL location (file:, http:, https:) refuses the whole report', () => {
      for (const uri of ['file:///src/a.c', 'file:src/a.c', 'http://example.com/a.c', 'https://example.com/a.c']) {
        expectRefusal(() => pathOf(uri), /is a URL/);
      }
    });

    it('[S1.4.3-25] a ".." segment refuses the whole report, even one that would collapse inside the tree', () => {
      expectRefusal(() => pathOf('../outside.c'), /"\.\."/);
      expectRefusal(() => pathOf('src/../../etc/passwd'), /"\.\."/);
      expectRefusal(() => pathOf('src/../a.c'), /"\.\."/);
      expectRefusal(() => pathOf('src\\..\\a.c'), /"\.\."/);
    });

    it('[S1.4.3-25] percent-encoded escapes are checked after decoding', () => {
      expectRefusal(() => pathOf('%2e%2e/etc/passwd'), /"\.\."/);
      expectRefusal(() => pathOf('%2Fetc/passwd'), /absolute/);
    });

    it('[S1.4.3-24] one bad location among good ones refuses the report, findings or not', () => {
      const results = [result(at('src/a.c')), result({ kind: 'pass', ...at('/etc/passwd') })];
      expectRefusal(() => parseSarif(log({ results })), /absolute/);
      const second = result({ locations: [at('src/a.c').locations[0], at('/etc/x').locations[0]] });
      expectRefusal(() => one(second), /absolute/);
    });

    it('[S1.4.3-24] a uriBaseId such as %SRCROOT% with a relative uri is fine, declared or not', () => {
      expect(pathOf('src/a.c', { uriBaseId: '%SRCROOT%' })).to.equal('src/a.c');
      expect(pathOf('a.c', { uriBaseId: 'SRC' }, { originalUriBaseIds: { SRC: { uri: 'file:///build/repo/' } } })).to.equal('a.c');
      expect(pathOf('a.c', { uriBaseId: 'SRC' }, { originalUriBaseIds: { SRC: { uri: 'lib/', uriBaseId: 'ROOT' }, ROOT: {} } })).to.equal('lib/a.c');
    });

    it('[S1.4.3-24] an absolute uri with a uriBaseId is still absolute', () => {
      expectRefusal(() => pathOf('file:///etc/passwd', { uriBaseId: '%SRCROOT%' }), /URL/);
    });

    it('[S1.4.3-25] a relative base that climbs out of the tree refuses the report', () => {
      expectRefusal(() => pathOf('a.c', { uriBaseId: 'UP' }, { originalUriBaseIds: { UP: { uri: '../' } } }), /"\.\."/);
    });

    it('a circular originalUriBaseIds chain is refused, not followed forever', () => {
      expectRefusal(() => pathOf('a.c', { uriBaseId: 'A' }, { originalUriBaseIds: { A: { uri: 'a/', uriBaseId: 'B' }, B: { uri: 'b/', uriBaseId: 'A' } } }), /itself/);
    });

    it('a location by artifact index outside run.artifacts is refused', () => {
      expectRefusal(() => one(result({ locations: [{ physicalLocation: { artifactLocation: { index: 4 } } }] })), /artifact 4/);
    });

    it('[S1.2.3-14] equivalent spellings normalise to one path', () => {
      for (const uri of ['./src/a.c', 'src//a.c', 'src\\a.c', ' src/a.c ', 'src/./a.c']) expect(pathOf(uri), uri).to.equal('src/a.c');
    });
  });

  describe('normalisePath', () => {
    it('[S1.2.3-08] collapses ./, empty segments and backslashes; "." alone is the repository', () => {
      expect(normalisePath('./a/./b//c/')).to.equal('a/b/c');
      expect(normalisePath('a\\b\\c.cs')).to.equal('a/b/c.cs');
      expect(normalisePath('.')).to.equal('');
      expect(normalisePath('')).to.equal('');
    });

    it('[S1.4.3-24] [S1.4.3-25] [S1.4.3-26] refuses absolute paths, drive letters, URLs, ".." and control characters', () => {
      for (const p of ['/a', '\\a', 'C:\\a', 'D:', 'file:///a', 'http://h/a', 'a/../b', '..', 'a/\u0000b']) {
        expect(() => normalisePath(p), p).to.throw(ImportRefusal);
      }
    });
  });

  describe('toolLabel', () => {
    it('[S1.4.3-03] is "name version", or the name alone without a version', () => {
      expect(toolLabel({ toolName: 'CodeQL', toolVersion: '2.24.1' })).to.equal('CodeQL 2.24.1');
      expect(toolLabel({ toolName: 'Bandit', toolVersion: null })).to.equal('Bandit');
    });

    it('[S1.4.3-04] writes a comma in a version as a semicolon', () => {
      expect(toolLabel({ toolName: 'T', toolVersion: '1.2,build 7,x' })).to.equal('T 1.2;build 7;x');
    });

    it('prefers driver.semanticVersion over driver.version', () => {
      const parsed = parseSarif(log({ tool: { driver: { name: 'T', version: 'v-long', semanticVersion: '3.1.0' } } }));
      expect(parsed.runs[0].toolVersion).to.equal('3.1.0');
      expect(parseSarif(log({ tool: { driver: { name: 'T' } } })).runs[0].toolVersion).to.equal(null);
    });
  });

  describe('strings as their columns hold them (issue #17)', () => {
    it('refuses a rule id, path, tool name or version longer than its issues column, naming the field; accepts the maximum', () => {
      expectRefusal(() => one(result({ ruleId: 'r'.repeat(513) })), /^In the SARIF log, runs\[0\]\.results\[0\]\.ruleId is 513 characters; at most 512\.$/);
      expect(one(result({ ruleId: 'r'.repeat(512) })).runs[0].findings[0].ruleId).to.have.length(512);
      expectRefusal(() => one(result(at(`a/${'p'.repeat(4095)}`))), /artifactLocation names a path of 4,097 characters; at most 4,096/);
      expect(one(result(at(`a/${'p'.repeat(4094)}`))).runs[0].findings[0].path).to.have.length(4096);
      expectRefusal(() => parseSarif(log({ tool: { driver: { name: 'T'.repeat(256) } } })), /runs\[0\]\.tool\.driver\.name is 256 characters; at most 255/);
      expectRefusal(() => parseSarif(log({ tool: { driver: { name: 'T', semanticVersion: '1'.repeat(256) } } })), /runs\[0\]\.tool\.driver\.semanticVersion is 256/);
    });

    it('counts characters as the columns do: a character outside the BMP is one', () => {
      expect(one(result({ ruleId: '\u{1F600}'.repeat(512) })).runs[0].findings[0].ruleId).to.have.length(1024);
    });

    it('refuses control characters in identifiers and C0 controls (not tab, LF, CR) in messages', () => {
      expectRefusal(() => one(result({ ruleId: 'R\u009f' })), /ruleId holds a control character \(U\+009F\) at character 2/);
      expectRefusal(() => one(result({ message: { text: 'a\u0000' } })), /runs\[0\]\.results\[0\]\.message\.text holds a control character \(U\+0000, NUL\)/);
      expect(one(result({ message: { text: 'a\tb\r\nc\u0085' } })).runs[0].findings[0].message).to.equal('a\tb\r\nc\u0085');
      expectRefusal(() => one(result(at('src/\u0085.c'))), /control character \(at runs\[0\]\.results\[0\]\.locations\[0\]\.physicalLocation\.artifactLocation\)/);
    });

    it('bounds only what a finding keeps: a result of kind pass with a long rule id is no finding and passes', () => {
      expect(one(result({ ruleId: 'r'.repeat(600), kind: 'pass' })).resultsCount).to.equal(1);
    });

    it('reads a scanner\'s own log without these bounds (boundStrings false): the scan fits its findings itself', () => {
      const parsed = parseSarif(log({ results: [result({ ruleId: 'r'.repeat(600), message: { text: 'a\u0000b' } })] }), { boundStrings: false });
      expect(parsed.runs[0].findings[0].ruleId).to.have.length(600);
    });
  });
});
