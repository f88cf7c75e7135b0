import { productId, type DocumentContext, type VexStatement } from './model';
import { JUSTIFICATION_READING, VEX_READING, type CsafProductStatus } from './vex-reading';

const REMEDIATION_DETAILS = {
  none_available: 'Affected; no fix is applied yet and remediation is planned.',
  no_fix_planned: 'Will not fix: the risk is accepted until the exception is reviewed.',
} as const;

/** The CSAF tracking id: the scope and the instant, so that the same as_of names the same document. */
export function csafTrackingId(ctx: DocumentContext): string {
  return `vigil-${ctx.scope.kind}-${ctx.scope.id}-${ctx.timestamp.replace(/[-:.]/g, '')}`;
}

/**
 * CSAF 2.0, VEX profile: a product tree of the components (by purl) of each target, one vulnerability per
 * CVE or GitHub advisory with its product status, a remediation for every known_affected product and a
 * flag (the justification) for every known_not_affected one, from VEX_READING.
 */
export function* csafVex(ctx: DocumentContext, statements: readonly VexStatement[]): Generator<string> {
  const trackingId = csafTrackingId(ctx);
  yield JSON.stringify({
    document: {
      category: 'csaf_vex', csaf_version: '2.0', lang: 'en',
      notes: [{ category: 'summary', title: 'Scope', text: `Triage of ${ctx.scope.kind} ${ctx.scope.name} (${ctx.scope.kind} ${ctx.scope.id}) as of ${ctx.timestamp}, exported by ${ctx.brand}.` }],
      publisher: { category: 'vendor', name: ctx.author, namespace: ctx.publicUrl ?? 'urn:vigil' },
      title: `${ctx.brand} VEX for ${ctx.scope.kind} ${ctx.scope.name}`,
      tracking: {
        current_release_date: ctx.timestamp,
        generator: { engine: { name: ctx.brand, version: ctx.version } },
        id: trackingId, initial_release_date: ctx.timestamp,
        revision_history: [{ date: ctx.timestamp, number: '1', summary: 'Exported.' }],
        status: 'final', version: '1',
      },
    },
  }).slice(0, -1);
  const products = new Map<string, VexStatement>();
  for (const s of statements) if (!products.has(productId(s))) products.set(productId(s), s);
  if (products.size) {
    yield ',"product_tree":{"full_product_names":[';
    let first = true;
    for (const [id, s] of [...products.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      yield (first ? '' : ',') + JSON.stringify({
        name: `${s.target.name}: ${s.componentName}${s.componentVersion ? ` ${s.componentVersion}` : ''}`, product_id: id,
        product_identification_helper: { purl: s.purl },
      });
      first = false;
    }
    yield ']}';
  }
  if (!statements.length) { yield '}'; return; }
  yield ',"vulnerabilities":[';
  // Statements come sorted by vulnerability: each group becomes one CSAF vulnerability.
  let group: VexStatement[] = [];
  let first = true;
  const flush = () => { const text = (first ? '' : ',') + JSON.stringify(csafVulnerability(group)); first = false; group = []; return text; };
  for (const s of statements) {
    if (group.length && group[0].vulnerability !== s.vulnerability) yield flush();
    group.push(s);
  }
  yield flush();
  yield ']}';
}

function csafVulnerability(group: readonly VexStatement[]) {
  const id = group[0].vulnerability;
  const status: Partial<Record<CsafProductStatus, string[]>> = {};
  const remediations = new Map<string, string[]>();
  const flags = new Map<string, string[]>();
  for (const s of group) {
    const cell = VEX_READING[s.situation].csaf;
    (status[cell.status] ??= []).push(productId(s));
    if (cell.remediation) (remediations.get(cell.remediation) ?? remediations.set(cell.remediation, []).get(cell.remediation)!).push(productId(s));
    if (cell.status === 'known_not_affected' && s.justification) {
      const label = JUSTIFICATION_READING[s.justification as keyof typeof JUSTIFICATION_READING].csaf;
      (flags.get(label) ?? flags.set(label, []).get(label)!).push(productId(s));
    }
  }
  const v: Record<string, unknown> = id.startsWith('CVE-') ? { cve: id } : { ids: [{ system_name: 'GitHub Security Advisory', text: id }] };
  if (flags.size) v.flags = [...flags.entries()].sort().map(([label, ids]) => ({ label, product_ids: ids }));
  v.notes = [{ category: 'description', title: 'Title', text: group[0].title || id }];
  v.product_status = Object.fromEntries((['fixed', 'known_affected', 'known_not_affected', 'under_investigation'] as const).filter((k) => status[k]).map((k) => [k, status[k]]));
  if (remediations.size) v.remediations = [...remediations.entries()].sort().map(([category, ids]) => ({ category, details: REMEDIATION_DETAILS[category as keyof typeof REMEDIATION_DETAILS], product_ids: ids }));
  return v;
}
