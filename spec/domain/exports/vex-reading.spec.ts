import { expect } from 'chai';
import { csafVex } from '../../../domain/exports/csaf';
import { cycloneDxVex } from '../../../domain/exports/cyclonedx-vex';
import { productId, type DocumentContext, type ExportTarget, type VexStatement } from '../../../domain/exports/model';
import { openVex } from '../../../domain/exports/openvex';
import { actionStatement, JUSTIFICATION_READING, VEX_READING, vexSituation, type VexSituation } from '../../../domain/exports/vex-reading';
import { NOT_AFFECTED_JUSTIFICATIONS } from '../../../domain/triage/justification';
import { TRIAGE_STATUSES } from '../../../domain/triage/status';
import { requireCorpus } from '../../support/corpus';
import { csafMandatoryFailures, expectValid } from '../../support/export-schemas';

const target: ExportTarget = { kind: 'repository', id: 7, name: 'shop', locator: 'https://git.example/org/shop', branch: 'main', projectId: null };
const ctx: DocumentContext = {
  scope: { kind: 'repository', id: 7, name: 'shop' }, timestamp: '2026-01-31T12:00:00.000Z', author: 'Example Corp PSIRT', brand: 'Vigil', version: '0.1.0',
  publicUrl: 'https://vigil.example.org', path: '/repositories/7/exports/x',
};

/** One statement per cell of the table (every justification for not_affected with one), each on its own component. */
function cells(): Array<{ statement: VexStatement; justification: string | null }> {
  const out: Array<{ statement: VexStatement; justification: string | null }> = [];
  let n = 0;
  const add = (situation: VexSituation, justification: string | null) => {
    n += 1;
    out.push({
      justification,
      statement: {
        vulnerability: `CVE-2024-${String(1000 + n)}`, target, purl: `pkg:npm/lib${n}@1.0.${n}`, componentName: `lib${n}`, componentVersion: `1.0.${n}`,
        situation, justification, reviewDate: situation === 'will_not_fix' ? '2026-03-01T00:00:00.000Z' : null, severity: 'high', title: `Flaw ${n}`, issueId: n,
      },
    });
  };
  for (const situation of Object.keys(VEX_READING) as VexSituation[]) {
    if (situation === 'not_affected_with_justification') for (const j of Object.keys(JUSTIFICATION_READING)) add(situation, j);
    else add(situation, null);
  }
  return out;
}

const parse = (pieces: Iterable<string>) => JSON.parse([...pieces].join(''));

describe('the VEX reading of a triage, one table walked cell by cell per format (spec 1 §4.5)', function () {
  requireCorpus(this);
  const all = cells();
  const statements = all.map((c) => c.statement);

  it('[S1.4.5-11] [S1.4.5-12] [S1.4.5-13] [S1.4.5-17] reads each triage status and the resolved lifecycle into one situation', () => {
    for (const status of TRIAGE_STATUSES) expect(vexSituation({ open: false, triageStatus: status, justification: null })).to.equal('resolved');
    expect(vexSituation({ open: true, triageStatus: 'pending_approval', justification: null })).to.equal('pending_approval');
    expect(vexSituation({ open: true, triageStatus: 'not_affected', justification: 'code_not_present' })).to.equal('not_affected_with_justification');
    expect(vexSituation({ open: true, triageStatus: 'not_affected', justification: null })).to.equal('not_affected_without_justification');
    expect(VEX_READING.pending_approval).to.deep.equal(VEX_READING.under_review);
    expect(VEX_READING.not_affected_without_justification).to.deep.equal(VEX_READING.under_review);
    expect(VEX_READING.resolved).to.deep.equal(VEX_READING.fixed);
  });

  it('[S1.4.5-14] [S1.4.5-18] CycloneDX VEX 1.6: every cell of the table as analysis state, justification and response; valid against the official schema', () => {
    const bom = parse(cycloneDxVex(ctx, statements));
    expectValid('cyclonedx', bom);
    for (const { statement, justification } of all) {
      const v = bom.vulnerabilities.find((x: any) => x.id === statement.vulnerability);
      const cell = VEX_READING[statement.situation].cyclonedx;
      expect(v.analysis.state, statement.situation).to.equal(cell.state);
      expect(v.analysis.response ?? null, statement.situation).to.deep.equal(cell.response ? [...cell.response] : null);
      expect(v.analysis.justification ?? null).to.equal(cell.state === 'not_affected' ? JUSTIFICATION_READING[justification as keyof typeof JUSTIFICATION_READING].cyclonedx : null);
      if (v.analysis.justification) expect(NOT_AFFECTED_JUSTIFICATIONS).to.include(v.analysis.justification);
      expect(v.affects).to.deep.equal([{ ref: productId(statement) }]);
      expect(bom.components.find((c: any) => c['bom-ref'] === productId(statement)).purl).to.equal(statement.purl);
    }
    expect(bom.vulnerabilities.find((x: any) => x.analysis.response)).to.deep.include({ analysis: { state: 'exploitable', response: ['will_not_fix'] } });
  });

  it('[S1.4.5-15] OpenVEX 0.2.0: every cell as status, justification and action statement; valid against the official schema', () => {
    const doc = parse(openVex(ctx, statements));
    expectValid('openvex', doc);
    expect(doc.author).to.equal('Example Corp PSIRT');
    expect(doc['@id']).to.match(/^https:\/\/vigil\.example\.org\/api\/v1\/repositories\/7\/exports\/x\?as_of=/);
    for (const { statement, justification } of all) {
      const s = doc.statements.find((x: any) => x.vulnerability.name === statement.vulnerability);
      const cell = VEX_READING[statement.situation].openvex;
      expect(s.status, statement.situation).to.equal(cell.status);
      expect(s.action_statement ?? null).to.equal(cell.action ? actionStatement(cell.action, statement.reviewDate) : null);
      expect(s.justification ?? null).to.equal(cell.status === 'not_affected' ? JUSTIFICATION_READING[justification as keyof typeof JUSTIFICATION_READING].openvex : null);
      expect(s.products[0].subcomponents[0]['@id']).to.equal(statement.purl);
    }
    expect(doc.statements.find((x: any) => x.action_statement?.startsWith('Will not fix')).status).to.equal('affected');
  });

  it('[S1.4.5-16] CSAF 2.0 VEX profile: every cell as product status, remediation and flag; valid against the official schema and the mandatory tests', async () => {
    const doc = parse(csafVex(ctx, statements));
    expectValid('csaf', doc);
    expect(await csafMandatoryFailures(doc)).to.deep.equal([]);
    for (const { statement, justification } of all) {
      const v = doc.vulnerabilities.find((x: any) => x.cve === statement.vulnerability);
      const cell = VEX_READING[statement.situation].csaf;
      expect(v.product_status, statement.situation).to.deep.equal({ [cell.status]: [productId(statement)] });
      expect(v.remediations ?? null).to.deep.equal(cell.remediation ? [{ category: cell.remediation, details: v.remediations[0].details, product_ids: [productId(statement)] }] : null);
      expect(v.flags ?? null).to.deep.equal(cell.status === 'known_not_affected'
        ? [{ label: JUSTIFICATION_READING[justification as keyof typeof JUSTIFICATION_READING].csaf, product_ids: [productId(statement)] }] : null);
      expect(doc.product_tree.full_product_names.find((p: any) => p.product_id === productId(statement)).product_identification_helper.purl).to.equal(statement.purl);
    }
  });

  it('a GitHub advisory id becomes a CSAF id of system GitHub Security Advisory; an empty scope is still a valid CycloneDX and CSAF document', async () => {
    const ghsa = { ...statements[0], vulnerability: 'GHSA-jf85-cpcp-j695' };
    const doc = parse(csafVex(ctx, [ghsa]));
    expect(doc.vulnerabilities[0].ids).to.deep.equal([{ system_name: 'GitHub Security Advisory', text: 'GHSA-jf85-cpcp-j695' }]);
    expect(await csafMandatoryFailures(doc)).to.deep.equal([]);
    expectValid('cyclonedx', parse(cycloneDxVex(ctx, [])));
    const empty = parse(csafVex(ctx, []));
    expectValid('csaf', empty);
  });
});
