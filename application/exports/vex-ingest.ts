import { vexVulnerabilityId, type ExportIssue } from '../../domain/exports/model';
import { readVex, type IngestFormat, type IngestStatement } from '../../domain/exports/vex-ingest';
import { refuse } from '../../domain/shared/decider';
import type { RequestContext } from '../command-handler';
import type { Principal } from '../identity/principal';
import type { BulkOutcome, BulkTriageBody, TriageBody } from '../triage/triage-service';
import type { ExportReads } from './ports';
import { issuePurl, normalisePurl } from './purls';

/** The triage command path (application/triage): each decision under the ordinary rules, four-eyes and If-Match included. */
export interface TriageDecisions {
  triageMany(principal: Principal, ctx: RequestContext, body: BulkTriageBody): Promise<{ results: BulkOutcome[] }>;
}

export type IngestOutcome = 'decided' | 'requested' | 'unchanged' | 'unmatched' | 'refused' | 'would_decide' | 'nothing_to_decide';

export interface IngestResult {
  vulnerability: string;
  purl: string | null;
  issueId: number | null;
  from: string | null;
  to: string | null;
  outcome: IngestOutcome;
  detail: string | null;
}

/** What a statement asks of an issue, as a triage body; null when it decides nothing (under investigation). */
function decisionOf(s: IngestStatement, expiresInDays: number, comment: string): TriageBody | null {
  switch (s.status) {
    case 'not_affected': return { status: 'not_affected', justification: s.justification, comment };
    case 'affected': return { status: 'affected', comment };
    case 'will_not_fix': return { status: 'will_not_fix', expires_in_days: expiresInDays, comment };
    case 'fixed': return { status: 'fixed', comment };
    default: return null;
  }
}

const sameAs = (issue: ExportIssue, body: TriageBody) => issue.triageStatus === body.status && (body.status !== 'not_affected' || (issue.justification ?? null) === (body.justification ?? null));

/**
 * POST /vex/ingest (issue #11): a supplier's CycloneDX VEX, OpenVEX or CSAF document, each statement
 * matched to the open issues the caller sees by vulnerability id and package URL (normalised by
 * packageurl-js), and applied as the caller's own triage decision through the triage command path:
 * four-eyes turns it into a request, each decision is pinned to the revision read (a change meanwhile
 * is refused issue-changed-meanwhile). dry_run reports what would change and writes nothing.
 */
export class VexIngestService {
  constructor(private readonly reads: ExportReads, private readonly triage: TriageDecisions) {}

  async ingest(principal: Principal, ctx: RequestContext, body: Buffer, options: { dryRun: boolean; expiresInDays: number; target?: { kind: 'repository' | 'container'; id: number } | null }) {
    let parsed: unknown;
    try { parsed = JSON.parse(body.toString('utf8')); } catch { throw refuse.invalid('The body is not JSON: a CycloneDX VEX, OpenVEX or CSAF document is expected.'); }
    const { format, statements } = readVex(parsed);
    const ids = [...new Set(statements.map((s) => vexVulnerabilityId({ identifier: s.vulnerability, ruleId: '' })).filter((x): x is string => x !== null))];
    const issues = await this.reads.matchingIssues(principal, ids, options.target ?? null);
    const index = new Map<string, Array<ExportIssue & { revision: number }>>();
    for (const issue of issues) {
      const key = `${vexVulnerabilityId(issue)}\u0000${issuePurl(issue)}`;
      (index.get(key) ?? index.set(key, []).get(key)!).push(issue);
    }
    const results: IngestResult[] = [];
    const planned: Array<{ result: IngestResult; issue: ExportIssue & { revision: number }; body: TriageBody }> = [];
    const comment = `Ingested from a ${format === 'csaf' ? 'CSAF' : format === 'openvex' ? 'OpenVEX' : 'CycloneDX'} VEX document.`;
    const claimed = new Set<number>();
    for (const s of statements) {
      const id = vexVulnerabilityId({ identifier: s.vulnerability, ruleId: '' }) ?? s.vulnerability;
      const purls = s.purls.map((p) => normalisePurl(p)).filter((p): p is string => p !== null);
      const decision = decisionOf(s, options.expiresInDays, comment);
      if (!purls.length) results.push({ vulnerability: id, purl: null, issueId: null, from: null, to: null, outcome: 'unmatched', detail: 'The statement names no package URL.' });
      for (const purl of purls) {
        const matched = index.get(`${id}\u0000${purl}`) ?? [];
        if (!matched.length) results.push({ vulnerability: id, purl, issueId: null, from: null, to: null, outcome: 'unmatched', detail: 'No open issue you see has this vulnerability on this component.' });
        for (const issue of matched) {
          const result: IngestResult = { vulnerability: id, purl, issueId: issue.id, from: issue.triageStatus, to: decision?.status ?? null, outcome: 'unchanged', detail: null };
          results.push(result);
          if (!decision) { result.outcome = 'nothing_to_decide'; result.detail = 'Under investigation: the statement decides nothing.'; continue; }
          if (claimed.has(issue.id)) { result.outcome = 'refused'; result.detail = 'An earlier statement of this document already decides this issue.'; continue; }
          claimed.add(issue.id);
          if (sameAs(issue, decision)) continue;
          if (options.dryRun) { result.outcome = 'would_decide'; continue; }
          planned.push({ result, issue, body: decision });
        }
      }
    }
    await this.apply(principal, ctx, planned);
    const counts: Record<string, number> = {};
    for (const r of results) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
    return { format: format as IngestFormat, dryRun: options.dryRun, statements: statements.length, counts, results };
  }

  /** The decisions grouped by body (one bulk triage each, at most 500 issues), each pinned to the revision read. */
  private async apply(principal: Principal, ctx: RequestContext, planned: Array<{ result: IngestResult; issue: { id: number; revision: number }; body: TriageBody }>) {
    const groups = new Map<string, typeof planned>();
    for (const p of planned) {
      const key = JSON.stringify(p.body);
      (groups.get(key) ?? groups.set(key, []).get(key)!).push(p);
    }
    for (const group of groups.values()) {
      for (let i = 0; i < group.length; i += 500) {
        const part = group.slice(i, i + 500);
        const { results } = await this.triage.triageMany(principal, ctx, { ...part[0].body, issues: part.map((p) => ({ id: p.issue.id, ifMatch: `"${p.issue.revision}"` })) });
        for (const outcome of results) {
          const p = part.find((x) => x.issue.id === outcome.id)!;
          if (outcome.outcome === 200) {
            p.result.outcome = outcome.triageStatus === 'pending_approval' ? 'requested' : 'decided';
          } else {
            p.result.outcome = 'refused';
            p.result.detail = `${outcome.outcome}${outcome.type ? ` ${outcome.type}` : ''}: ${outcome.detail}`;
          }
        }
      }
    }
  }
}
