import type { TargetKind } from '../shared/target-kind';
import type { TriageStatus } from '../triage/status';
import { sha256Hex } from '../shared/digest';
import { vexSituation, type VexSituation } from './vex-reading';

/** What an export covers (spec 1 §1.9): one target, a project's targets or a solution's. */
export type ScopeKind = TargetKind | 'project' | 'solution';
export const SCOPE_KINDS: readonly ScopeKind[] = ['repository', 'container', 'project', 'solution'];

export interface ExportScope {
  kind: ScopeKind;
  id: number;
  name: string;
}

/** A target as an export names it: id, name and where it comes from (URL and branch, or image). */
export interface ExportTarget {
  kind: TargetKind;
  id: number;
  name: string;
  /** Repository URL or image reference. */
  locator: string;
  branch: string | null;
  projectId: number | null;
}

/** One issue as the exports read it, from the read model or folded from the log up to an instant. */
export interface ExportIssue {
  id: number;
  targetKind: TargetKind;
  targetId: number;
  type: string;
  toolName: string;
  ruleId: string;
  path: string;
  line: number | null;
  severity: string;
  title: string;
  identifier: string | null;
  packageName: string | null;
  packageVersion: string | null;
  fixable: boolean | null;
  open: boolean;
  triageStatus: TriageStatus;
  justification: string | null;
  reviewDate: string | null;
  firstSeenAt: string;
  /** Listed in the KEV catalogue in use (null: no catalogue synchronised yet, S1.1-09), as of the document's instant. */
  kev: boolean | null;
  /** EPSS score of the generation in use (null: never synchronised, or the file scores no such CVE), as of the document's instant. */
  epss: number | null;
}

/** Everything a document states beside its rows: who, when, for what; nothing else varies its bytes. */
export interface DocumentContext {
  scope: ExportScope;
  /** The instant the document answers for (as_of, or the time it was asked). */
  timestamp: string;
  author: string;
  brand: string;
  version: string;
  /** VIGIL_PUBLIC_URL without a trailing slash, or null. */
  publicUrl: string | null;
  /** The export's own path below /api/v1, for links and identifiers. */
  path: string;
}

const VULNERABILITY_ID = /^(CVE-\d{4}-\d{4,}|GHSA(-[23456789cfghjmpqrvwx]{4}){3})$/i;

/** A vulnerability id VEX can state: a CVE or a GitHub advisory id. */
export function vexVulnerabilityId(issue: Pick<ExportIssue, 'identifier' | 'ruleId'>): string | null {
  for (const candidate of [issue.identifier, issue.ruleId]) {
    const id = candidate?.trim();
    // CVE ids are upper case; GitHub writes its advisory ids GHSA-xxxx-xxxx-xxxx.
    if (id && VULNERABILITY_ID.test(id)) return /^cve/i.test(id) ? id.toUpperCase() : `GHSA${id.slice(4).toLowerCase()}`;
  }
  return null;
}

/** One VEX statement: a vulnerability on a component of a target, read from the issue that decides it. */
export interface VexStatement {
  vulnerability: string;
  target: ExportTarget;
  purl: string;
  componentName: string;
  componentVersion: string | null;
  situation: VexSituation;
  justification: string | null;
  reviewDate: string | null;
  severity: string;
  title: string;
  issueId: number;
}

/** The product a statement speaks of: a component inside a target, named the same in every format. */
export const productId = (s: Pick<VexStatement, 'target' | 'purl'>) => `${s.target.kind}-${s.target.id}:${s.purl}`;

/**
 * The statements of a set of issues: one per (vulnerability, target, component), in a fixed order.
 * When two issues speak of the same one (two tools), an open issue wins over a resolved one, then the
 * lower issue id: a product never carries two statuses (CSAF 6.1.6).
 */
export function vexStatements(issues: Iterable<ExportIssue>, targets: ReadonlyMap<string, ExportTarget>, purlOf: (issue: ExportIssue) => string | null): VexStatement[] {
  const chosen = new Map<string, { issue: ExportIssue; statement: VexStatement }>();
  for (const issue of issues) {
    const vulnerability = vexVulnerabilityId(issue);
    const target = targets.get(`${issue.targetKind}-${issue.targetId}`);
    const purl = vulnerability && target ? purlOf(issue) : null;
    if (!vulnerability || !target || !purl) continue;
    const key = `${vulnerability}\u0000${target.kind}-${target.id}\u0000${purl}`;
    const held = chosen.get(key);
    if (held && (held.issue.open && !issue.open || (held.issue.open === issue.open && held.issue.id < issue.id))) continue;
    chosen.set(key, {
      issue,
      statement: {
        vulnerability, target, purl, componentName: issue.packageName ?? purl, componentVersion: issue.packageVersion,
        situation: vexSituation(issue), justification: issue.justification, reviewDate: issue.reviewDate, severity: issue.severity, title: issue.title, issueId: issue.id,
      },
    });
  }
  return [...chosen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v.statement);
}

/** A UUID (version 5 layout) from a digest of the text: the same document gets the same serial number. */
export function deterministicUuid(text: string): string {
  const h = sha256Hex(text).slice(0, 32).split('');
  h[12] = '5';
  h[16] = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  const x = h.join('');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** The base of links: VIGIL_PUBLIC_URL, or a URN naming Vigil when none is set. */
export function documentIri(ctx: DocumentContext): string {
  const query = `?as_of=${encodeURIComponent(ctx.timestamp)}`;
  return ctx.publicUrl ? `${ctx.publicUrl}/api/v1${ctx.path}${query}` : `urn:vigil:export:${ctx.path.replace(/^\//, '').replace(/\//g, ':')}:${ctx.timestamp}`;
}
