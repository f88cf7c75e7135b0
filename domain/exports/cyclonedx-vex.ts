import { deterministicUuid, documentIri, productId, type DocumentContext, type VexStatement } from './model';
import { JUSTIFICATION_READING, VEX_READING } from './vex-reading';

/** Where a vulnerability id is described: the CVE list or GitHub's advisory database. */
export function vulnerabilitySource(id: string): { name: string; url: string } {
  return id.startsWith('CVE-') ? { name: 'NVD', url: `https://nvd.nist.gov/vuln/detail/${id}` } : { name: 'GitHub', url: `https://github.com/advisories/${id}` };
}

const CDX_SEVERITY = new Set(['critical', 'high', 'medium', 'low', 'info', 'none', 'unknown']);

/** The document head every CycloneDX export shares (VEX and SBOM): fixed key order, a serial number from its identity. */
export function cycloneDxHead(ctx: DocumentContext): string {
  return JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.6', serialNumber: `urn:uuid:${deterministicUuid(documentIri(ctx))}`, version: 1,
    metadata: {
      timestamp: ctx.timestamp,
      tools: { components: [{ type: 'application', name: ctx.brand, version: ctx.version }] },
      authors: [{ name: ctx.author }],
      component: { type: 'application', 'bom-ref': `${ctx.scope.kind}-${ctx.scope.id}`, name: ctx.scope.name },
    },
  }).slice(0, -1);
}

/** Components of the statements, each (target, purl) once, in order. */
function components(statements: readonly VexStatement[]) {
  const seen = new Map<string, VexStatement>();
  for (const s of statements) if (!seen.has(productId(s))) seen.set(productId(s), s);
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * CycloneDX 1.6 VEX: the components the statements name and one vulnerability per statement with its
 * `analysis` (state, justification, response) read from VEX_READING. Yields the document in pieces.
 */
export function* cycloneDxVex(ctx: DocumentContext, statements: readonly VexStatement[]): Generator<string> {
  yield cycloneDxHead(ctx);
  yield ',"components":[';
  let first = true;
  for (const [ref, s] of components(statements)) {
    const component: Record<string, unknown> = { type: 'library', 'bom-ref': ref, name: s.componentName };
    if (s.componentVersion) component.version = s.componentVersion;
    component.purl = s.purl;
    component.properties = [{ name: 'vigil:target', value: `${s.target.kind}-${s.target.id} ${s.target.name}` }];
    yield (first ? '' : ',') + JSON.stringify(component);
    first = false;
  }
  yield '],"vulnerabilities":[';
  first = true;
  for (const s of statements) {
    const cell = VEX_READING[s.situation].cyclonedx;
    const analysis: Record<string, unknown> = { state: cell.state };
    if (cell.state === 'not_affected' && s.justification) analysis.justification = JUSTIFICATION_READING[s.justification as keyof typeof JUSTIFICATION_READING].cyclonedx;
    if (cell.response) analysis.response = [...cell.response];
    yield (first ? '' : ',') + JSON.stringify({
      'bom-ref': `${s.vulnerability}/${productId(s)}`,
      id: s.vulnerability,
      source: vulnerabilitySource(s.vulnerability),
      ratings: [{ severity: CDX_SEVERITY.has(s.severity) ? s.severity : 'unknown', method: 'other' }],
      description: s.title,
      analysis,
      affects: [{ ref: productId(s) }],
      properties: [{ name: 'vigil:issue', value: String(s.issueId) }],
    });
    first = false;
  }
  yield ']}';
}
