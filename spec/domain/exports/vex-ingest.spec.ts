import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { readVex } from '../../../domain/exports/vex-ingest';
import { enrichmentAsOf, issueAsOf, portfolioAsOf, upTo } from '../../../domain/exports/as-of';
import { DomainError } from '../../../domain/shared/decider';
import { corpusPath, requireCorpus } from '../../support/corpus';

const corpus = (...p: string[]) => JSON.parse(readFileSync(corpusPath(...p), 'utf8'));

describe('reading a supplier\'s VEX (POST /vex/ingest)', function () {
  requireCorpus(this);

  it('CycloneDX: exploitable with response will_not_fix is will_not_fix; a producer\'s own id gives way to the CVE among its references', () => {
    const affected = readVex(corpus('sbom', 'cyclonedx-1.4', 'bom-examples__vex-affected.json'));
    expect(affected.format).to.equal('cyclonedx');
    expect(affected.statements).to.deep.equal([{ vulnerability: 'CVE-2021-44228', purls: [], status: 'will_not_fix', justification: null }]);
    const doc = {
      bomFormat: 'CycloneDX', specVersion: '1.6', components: [{ 'bom-ref': 'c1', purl: 'pkg:npm/a@1', name: 'a', components: [{ 'bom-ref': 'c2', purl: 'pkg:npm/b@2', name: 'b' }] }],
      vulnerabilities: [
        { id: 'SNYK-JS-A-1', references: [{ id: 'CVE-2024-1111' }], analysis: { state: 'false_positive' }, affects: [{ ref: 'c1' }] },
        { id: 'CVE-2024-2222', analysis: { state: 'not_affected', justification: 'protected_at_runtime' }, affects: [{ ref: 'c2' }, { ref: 'pkg:npm/c@3' }] },
        { id: 'CVE-2024-3333', analysis: { state: 'resolved_with_pedigree' }, affects: [{ ref: 'c2' }] },
        { id: 'CVE-2024-4444', affects: [{ ref: 'c2' }] },
      ],
    };
    expect(readVex(doc).statements).to.deep.equal([
      { vulnerability: 'CVE-2024-1111', purls: ['pkg:npm/a@1'], status: 'not_affected', justification: null },
      { vulnerability: 'CVE-2024-2222', purls: ['pkg:npm/b@2', 'pkg:npm/c@3'], status: 'not_affected', justification: 'protected_by_mitigating_control' },
      { vulnerability: 'CVE-2024-3333', purls: ['pkg:npm/b@2'], status: 'fixed', justification: null },
    ]);
  });

  it('OpenVEX: products and subcomponents by purl, aliases, justifications mapped to Vigil\'s four', () => {
    const doc = {
      '@context': 'https://openvex.dev/ns/v0.2.0', '@id': 'https://x/1', author: 'S', timestamp: '2026-01-01T00:00:00Z', version: 1,
      statements: [
        { vulnerability: { name: 'ACME-1', aliases: ['GHSA-jf85-cpcp-j695'] }, products: [{ '@id': 'pkg:npm/a@1', subcomponents: [{ identifiers: { purl: 'pkg:npm/b@2' } }] }], status: 'not_affected', justification: 'component_not_present' },
        { vulnerability: { name: 'CVE-2024-5' }, products: [{ '@id': 'pkg:npm/a@1' }], status: 'affected', action_statement: 'Upgrade.' },
      ],
    };
    expect(readVex(doc).statements).to.deep.equal([
      { vulnerability: 'GHSA-jf85-cpcp-j695', purls: ['pkg:npm/a@1', 'pkg:npm/b@2'], status: 'not_affected', justification: 'code_not_present' },
      { vulnerability: 'CVE-2024-5', purls: ['pkg:npm/a@1'], status: 'affected', justification: null },
    ]);
  });

  it('CSAF: products from branches, known_affected with no_fix_planned is will_not_fix, flags are justifications; anything else is refused (400)', () => {
    const doc = {
      document: { csaf_version: '2.0', category: 'csaf_vex' },
      product_tree: { branches: [{ category: 'vendor', name: 'v', branches: [{ category: 'product_version', name: '1', product: { product_id: 'P1', name: 'p', product_identification_helper: { purl: 'pkg:pypi/p@1' } } }] }] },
      vulnerabilities: [{
        cve: 'CVE-2024-7', product_status: { known_affected: ['P1'] }, remediations: [{ category: 'no_fix_planned', details: 'x', product_ids: ['P1'] }],
      }, {
        cve: 'CVE-2024-8', product_status: { known_not_affected: ['P1'] }, flags: [{ label: 'inline_mitigations_already_exist', product_ids: ['P1'] }],
      }],
    };
    expect(readVex(doc).statements).to.deep.equal([
      { vulnerability: 'CVE-2024-7', purls: ['pkg:pypi/p@1'], status: 'will_not_fix', justification: null },
      { vulnerability: 'CVE-2024-8', purls: ['pkg:pypi/p@1'], status: 'not_affected', justification: 'protected_by_mitigating_control' },
    ]);
    expect(() => readVex({ spdxVersion: 'SPDX-2.3' })).to.throw(DomainError, /neither CycloneDX/);
  });
});

describe('the fold up to an instant (as_of)', () => {
  it('an issue folded up to an instant: nothing before detection, the triage in force then, resolution', () => {
    const detected = { type: 'IssueDetected', at: '2026-01-01T00:00:00.000Z', data: { id: 5, targetKind: 'repository', targetId: 1, type: 'vulnerability', ruleId: 'CVE-2024-1', path: 'pkg:npm/a@1', severity: 'high', title: 't', identifier: 'CVE-2024-1', at: '2026-01-01T00:00:00.000Z' } };
    const decided = { type: 'TriageDecided', at: '2026-01-02T00:00:00.000Z', data: { status: 'affected', previousStatus: 'under_review', justification: null, comment: null, reviewDate: null, actor: '1', at: '2026-01-02T00:00:00.000Z' } };
    const resolved = { type: 'IssueResolved', at: '2026-01-03T00:00:00.000Z', data: { at: '2026-01-03T00:00:00.000Z' } };
    const events = [detected, decided, resolved];
    expect(issueAsOf(upTo(events, '2025-12-31T23:59:59.999Z'))).to.equal(null);
    expect(issueAsOf(upTo(events, '2026-01-01T12:00:00.000Z'))).to.include({ open: true, triageStatus: 'under_review' });
    expect(issueAsOf(upTo(events, '2026-01-02T00:00:00.000Z'))).to.include({ open: true, triageStatus: 'affected' });
    expect(issueAsOf(upTo(events, '2026-01-04T00:00:00.000Z'))).to.include({ open: false, triageStatus: 'affected' });
  });

  it('the feeds folded up to an instant: no catalogue (unknown) before the first synchronisation, listings and delistings, the EPSS generation in use', () => {
    const at = (d: string) => `2026-01-0${d}T00:00:00.000Z`;
    const kev = [
      { type: 'KevEntriesListed', at: at('1'), data: { entries: [{ cve: 'CVE-1' }, { cve: 'CVE-2' }] } },
      { type: 'KevCatalogueSynchronised', at: at('1'), data: {} },
      { type: 'KevEntriesListed', at: at('3'), data: { entries: [{ cve: 'CVE-3' }] } },
      { type: 'KevEntriesDelisted', at: at('3'), data: { cves: ['CVE-1'] } },
      { type: 'KevCatalogueSynchronised', at: at('3'), data: {} },
    ];
    const epss = [{ type: 'EpssScoresSynchronised', at: at('2'), data: { generation: 7 } }, { type: 'FeedRefused', at: at('4'), data: {} }, { type: 'EpssScoresSynchronised', at: at('5'), data: { generation: 9 } }];
    const fold = (instant: string) => { const f = enrichmentAsOf(upTo(kev, instant), upTo(epss, instant)); return { kev: f.kevListed && [...f.kevListed].sort(), epss: f.epssGeneration }; };
    expect(fold('2025-12-31T00:00:00.000Z')).to.deep.equal({ kev: null, epss: null });
    expect(fold(at('2'))).to.deep.equal({ kev: ['CVE-1', 'CVE-2'], epss: 7 });
    expect(fold(at('4'))).to.deep.equal({ kev: ['CVE-2', 'CVE-3'], epss: 7 });
    expect(fold(at('6'))).to.deep.equal({ kev: ['CVE-2', 'CVE-3'], epss: 9 });
  });

  it('a project or solution folded up to an instant: nothing before it was created, then its name and solution', () => {
    const created = [{ type: 'ProjectCreated', at: '2026-01-02T00:00:00.000Z', data: { id: 3, name: 'Checkout', solutionId: 1 } }];
    expect(portfolioAsOf(upTo(created, '2026-01-01T00:00:00.000Z'))).to.equal(null);
    expect(portfolioAsOf(upTo(created, '2026-01-02T00:00:00.000Z'))).to.deep.equal({ name: 'Checkout', solutionId: 1 });
    expect(portfolioAsOf([{ type: 'SolutionCreated', at: '2026-01-02T00:00:00.000Z', data: { id: 1, name: 'Shop' } }])).to.deep.equal({ name: 'Shop', solutionId: null });
  });
});
