import { refuse } from '../shared/decider';
import { documentIri, type DocumentContext, type ExportTarget, type VexStatement } from './model';
import { actionStatement, JUSTIFICATION_READING, VEX_READING } from './vex-reading';

/** A target as an IRI: its link under VIGIL_PUBLIC_URL, or a URN naming it. */
export function targetIri(ctx: Pick<DocumentContext, 'publicUrl'>, target: Pick<ExportTarget, 'kind' | 'id'>): string {
  const plural = target.kind === 'repository' ? 'repositories' : 'containers';
  return ctx.publicUrl ? `${ctx.publicUrl}/api/v1/${plural}/${target.id}` : `urn:vigil:${target.kind}:${target.id}`;
}

/**
 * OpenVEX 0.2.0: one statement per (vulnerability, target, component), the target as the product and
 * the component (purl) as its subcomponent; status, justification and action statement from VEX_READING.
 * OpenVEX needs at least one statement: an export with none is refused (409) rather than invalid.
 */
export function* openVex(ctx: DocumentContext, statements: readonly VexStatement[]): Generator<string> {
  if (statements.length === 0) throw refuse.conflict(`No vulnerability of ${ctx.scope.kind} ${ctx.scope.id} can be stated: OpenVEX requires at least one statement.`);
  yield JSON.stringify({
    '@context': 'https://openvex.dev/ns/v0.2.0', '@id': documentIri(ctx), author: ctx.author, role: 'Document Creator',
    timestamp: ctx.timestamp, version: 1, tooling: `${ctx.brand} ${ctx.version}`,
  }).slice(0, -1);
  yield ',"statements":[';
  let first = true;
  for (const s of statements) {
    const cell = VEX_READING[s.situation].openvex;
    const statement: Record<string, unknown> = {
      vulnerability: { name: s.vulnerability },
      products: [{ '@id': targetIri(ctx, s.target), subcomponents: [{ '@id': s.purl, identifiers: { purl: s.purl } }] }],
      status: cell.status,
    };
    if (cell.status === 'not_affected' && s.justification) statement.justification = JUSTIFICATION_READING[s.justification as keyof typeof JUSTIFICATION_READING].openvex;
    if (cell.action) statement.action_statement = actionStatement(cell.action, s.reviewDate);
    yield (first ? '' : ',') + JSON.stringify(statement);
    first = false;
  }
  yield ']}';
}
