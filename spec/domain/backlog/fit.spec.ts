import { expect } from 'chai';
import { fitFinding } from '../../../domain/backlog/fit';
import type { Finding } from '../../../domain/backlog/issue';

const finding = (extra: Partial<Finding> = {}): Finding => ({
  targetKind: 'repository', targetId: 1, toolKey: 'scanner:sast', ruleId: 'R1', path: 'src/a.c', type: 'sast', severity: 'high', line: 3,
  title: 'T', identifier: 'R1', packageName: null, packageVersion: null, fixable: null, toolName: 'semgrep', toolVersion: '1.0', ...extra,
});

/** Scanner findings are never refused: they are made to fit the issues table (issue #17). */
describe('fitFinding (domain/backlog/fit.ts)', () => {
  it('leaves a finding that fits as it is', () => {
    expect(fitFinding(finding())).to.deep.equal(finding());
  });

  it('cuts each identifier to its column: rule 512, path 4,096, package 512, version 255, tool name and version 255', () => {
    const fitted = fitFinding(finding({
      ruleId: 'r'.repeat(600), path: 'p'.repeat(5000), packageName: 'n'.repeat(600), packageVersion: 'v'.repeat(300), toolName: 't'.repeat(300), toolVersion: 'w'.repeat(300),
    }));
    expect([fitted.ruleId, fitted.path, fitted.packageName, fitted.packageVersion, fitted.toolName, fitted.toolVersion].map((s) => s!.length)).to.deep.equal([512, 4096, 512, 255, 255, 255]);
  });

  it('makes control characters spaces in identifiers, keeps tab, LF and CR in the title and drops the rest there', () => {
    const fitted = fitFinding(finding({ ruleId: 'R\u00001', path: 'a\u0085b', title: 'line\tone\r\nline\u0000two\u001b', packageName: 'p\u0007' }));
    expect(fitted).to.deep.include({ ruleId: 'R 1', path: 'a b', title: 'line\tone\r\nline two ', packageName: 'p ' });
  });

  it('an identifier too long for its column (255) is none; a pair of surrogates is never split', () => {
    expect(fitFinding(finding({ identifier: 'i'.repeat(256) })).identifier).to.equal(null);
    expect(fitFinding(finding({ identifier: 'CVE-2024-0001' })).identifier).to.equal('CVE-2024-0001');
    expect(fitFinding(finding({ ruleId: `${'r'.repeat(511)}\u{1F600}x` })).ruleId).to.equal(`${'r'.repeat(511)}\u{1F600}`);
  });
});
