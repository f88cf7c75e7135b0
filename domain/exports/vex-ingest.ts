import { refuse } from '../shared/decider';
import type { NotAffectedJustification } from '../triage/justification';

/**
 * Reading a supplier's VEX (issue #11, POST /vex/ingest): CycloneDX VEX, OpenVEX or CSAF into
 * statements of one shape, each a vulnerability on the components (package URLs) it names and what
 * it says of them. The reverse of VEX_READING, with the words other producers use too.
 */
export type IngestFormat = 'cyclonedx' | 'openvex' | 'csaf';
export type IngestStatus = 'not_affected' | 'affected' | 'will_not_fix' | 'fixed' | 'under_investigation';

export interface IngestStatement {
  vulnerability: string;
  purls: string[];
  status: IngestStatus;
  justification: NotAffectedJustification | null;
}

/** Every format's justification words read as Vigil's four (CycloneDX's own, OpenVEX's and CSAF's labels). */
export const INGEST_JUSTIFICATIONS: Readonly<Record<string, NotAffectedJustification>> = {
  code_not_present: 'code_not_present', code_not_reachable: 'code_not_reachable', requires_environment: 'requires_environment',
  protected_by_mitigating_control: 'protected_by_mitigating_control', requires_configuration: 'requires_environment', requires_dependency: 'requires_environment',
  protected_by_compiler: 'protected_by_mitigating_control', protected_at_runtime: 'protected_by_mitigating_control', protected_at_perimeter: 'protected_by_mitigating_control',
  component_not_present: 'code_not_present', vulnerable_code_not_present: 'code_not_present', vulnerable_code_not_in_execute_path: 'code_not_reachable',
  vulnerable_code_cannot_be_controlled_by_adversary: 'requires_environment', inline_mitigations_already_exist: 'protected_by_mitigating_control',
};

const MAX_STATEMENTS = 100_000;
type Json = Record<string, any>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): any[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 && v.length <= 4096 ? v : null);
const justificationOf = (v: unknown) => (typeof v === 'string' ? INGEST_JUSTIFICATIONS[v] ?? null : null);
/** An OpenVEX action statement that says no fix will come (our own export writes "Will not fix: ..."). */
const WILL_NOT_FIX = /\b(will not fix|won'?t fix|no fix planned|risk (is )?accepted)\b/i;

const MATCHABLE = /^(CVE-\d{4}-\d{4,}|GHSA(-[23456789cfghjmpqrvwx]{4}){3})$/i;

/** The first CVE or GHSA id among a statement's names, else its first name. */
function preferredId(candidates: unknown[]): string | null {
  const names = candidates.map(text).filter((x): x is string => x !== null);
  return names.find((n) => MATCHABLE.test(n)) ?? names[0] ?? null;
}

export function detectFormat(doc: unknown): IngestFormat {
  if (isObject(doc) && doc.bomFormat === 'CycloneDX') return 'cyclonedx';
  if (isObject(doc) && typeof doc['@context'] === 'string' && doc['@context'].startsWith('https://openvex.dev/ns')) return 'openvex';
  if (isObject(doc) && isObject(doc.document) && typeof doc.document.csaf_version === 'string') return 'csaf';
  throw refuse.invalid('The body is neither CycloneDX (bomFormat), OpenVEX (@context https://openvex.dev/ns/...) nor CSAF (document.csaf_version).');
}

export function readVex(doc: unknown): { format: IngestFormat; statements: IngestStatement[] } {
  const format = detectFormat(doc);
  const statements = format === 'cyclonedx' ? fromCycloneDx(doc as Json) : format === 'openvex' ? fromOpenVex(doc as Json) : fromCsaf(doc as Json);
  if (statements.length > MAX_STATEMENTS) throw refuse.invalid(`The document holds ${statements.length} statements; at most ${MAX_STATEMENTS}.`);
  return { format, statements };
}

function fromCycloneDx(doc: Json): IngestStatement[] {
  const purlByRef = new Map<string, string>();
  const walk = (components: unknown, depth: number) => {
    if (depth > 32) return;
    for (const c of list(components)) {
      if (!isObject(c)) continue;
      const purl = text(c.purl);
      if (purl) { purlByRef.set(String(c['bom-ref'] ?? purl), purl); purlByRef.set(purl, purl); }
      walk(c.components, depth + 1);
    }
  };
  walk(doc.components, 0);
  if (isObject(doc.metadata) && isObject(doc.metadata.component)) walk([doc.metadata.component], 0);
  const out: IngestStatement[] = [];
  for (const v of list(doc.vulnerabilities)) {
    // A producer's own id (SNYK-..., a BDSA id) with the CVE among its references: the CVE is what matches.
    const id = isObject(v) ? preferredId([v.id, ...list(v.references).map((r) => (isObject(r) ? r.id : null))]) : null;
    const analysis = isObject(v) && isObject(v.analysis) ? v.analysis : null;
    if (!id || !analysis) continue;
    const responses = list(analysis.response);
    const state = analysis.state;
    const status: IngestStatus | null = state === 'not_affected' || state === 'false_positive' ? 'not_affected'
      : state === 'exploitable' ? (responses.includes('will_not_fix') ? 'will_not_fix' : 'affected')
        : state === 'resolved' || state === 'resolved_with_pedigree' ? 'fixed' : state === 'in_triage' ? 'under_investigation' : null;
    if (!status) continue;
    const purls = list(v.affects).map((a) => (isObject(a) ? purlByRef.get(String(a.ref)) ?? (text(a.ref)?.startsWith('pkg:') ? a.ref : null) : null)).filter(Boolean) as string[];
    out.push({ vulnerability: id, purls, status, justification: status === 'not_affected' ? justificationOf(analysis.justification) : null });
  }
  return out;
}

function fromOpenVex(doc: Json): IngestStatement[] {
  const out: IngestStatement[] = [];
  for (const s of list(doc.statements)) {
    if (!isObject(s) || !isObject(s.vulnerability)) continue;
    const id = preferredId([s.vulnerability.name, ...list(s.vulnerability.aliases)]);
    const status: IngestStatus | null = s.status === 'not_affected' ? 'not_affected' : s.status === 'fixed' ? 'fixed' : s.status === 'under_investigation' ? 'under_investigation'
      : s.status === 'affected' ? (WILL_NOT_FIX.test(String(s.action_statement ?? '')) ? 'will_not_fix' : 'affected') : null;
    if (!id || !status) continue;
    const purls: string[] = [];
    const take = (p: unknown) => {
      if (!isObject(p)) return;
      const purl = text(isObject(p.identifiers) ? p.identifiers.purl : null) ?? (text(p['@id'])?.startsWith('pkg:') ? p['@id'] : null);
      if (purl) purls.push(purl);
    };
    for (const product of list(s.products)) { take(product); if (isObject(product)) list(product.subcomponents).forEach(take); }
    out.push({ vulnerability: id, purls, status, justification: status === 'not_affected' ? justificationOf(s.justification) : null });
  }
  return out;
}

function fromCsaf(doc: Json): IngestStatement[] {
  const purlById = new Map<string, string>();
  const name = (p: unknown) => {
    if (!isObject(p)) return;
    const purl = isObject(p.product_identification_helper) ? text(p.product_identification_helper.purl) : null;
    if (purl && text(p.product_id)) purlById.set(p.product_id, purl);
  };
  const tree = isObject(doc.product_tree) ? doc.product_tree : {};
  list(tree.full_product_names).forEach(name);
  const branches = (b: unknown, depth: number) => {
    if (depth > 32) return;
    for (const x of list(b)) { if (!isObject(x)) continue; name(x.product); branches(x.branches, depth + 1); }
  };
  branches(tree.branches, 0);
  list(tree.relationships).forEach((r) => isObject(r) && name(r.full_product_name));
  const out: IngestStatement[] = [];
  for (const v of list(doc.vulnerabilities)) {
    if (!isObject(v)) continue;
    const id = text(v.cve) ?? text(list(v.ids).find((i) => isObject(i) && text(i.text))?.text);
    if (!id || !isObject(v.product_status)) continue;
    const noFix = new Set(list(v.remediations).filter((r) => isObject(r) && r.category === 'no_fix_planned').flatMap((r) => list(r.product_ids)));
    const flagOf = new Map<string, string>();
    for (const f of list(v.flags)) if (isObject(f)) for (const p of list(f.product_ids)) flagOf.set(p, f.label);
    const groups: Array<[string, (pid: string) => IngestStatus]> = [
      ['known_not_affected', () => 'not_affected'], ['fixed', () => 'fixed'], ['first_fixed', () => 'fixed'],
      ['known_affected', (pid) => (noFix.has(pid) ? 'will_not_fix' : 'affected')], ['first_affected', () => 'affected'], ['last_affected', () => 'affected'],
      ['under_investigation', () => 'under_investigation'],
    ];
    for (const [group, statusOf] of groups) {
      for (const pid of list(v.product_status[group])) {
        const purl = purlById.get(pid);
        const status = statusOf(pid);
        out.push({ vulnerability: id, purls: purl ? [purl] : [], status, justification: status === 'not_affected' ? justificationOf(flagOf.get(pid)) : null });
      }
    }
  }
  return out;
}
