import { Finding, importToolKey, Provenance } from '../../domain/backlog/issue';
import { ImportRefusal } from '../../domain/imports/import-refusal';
import { SarifParseResult, SarifRun, toolLabel } from '../../domain/imports/reports';
import { width } from '../../domain/shared/column-widths';
import { sha256Hex } from '../../domain/shared/digest';
import { streams } from '../../domain/shared/streams';
import { characters } from '../../domain/shared/text';
import { BacklogService } from '../backlog/backlog-service';
import { RequestContext } from '../command-handler';
import { Principal } from '../identity/principal';
import { IdGenerator } from '../ports/ids';
import { ImportAccess } from './import-access';
import { ReportParsers } from './ports';
import { HttpRefusal } from './refusal';

/**
 * POST /repositories/{id}/sarif-imports (spec 1 §4.3): each run's tool is its own scope under
 * `import:<slug>/<tool>`; the upload replaces that tool's previous one on the repository. The
 * document is kept by its SHA-256 only.
 */
export class SarifImportService {
  constructor(private readonly access: ImportAccess, private readonly backlog: BacklogService, private readonly ids: IdGenerator, private readonly parsers: ReportParsers) {}

  async import(ctx: RequestContext, principal: Principal, repositoryId: number, body: Buffer) {
    const source = await this.access.check(ctx, principal, 'sarif', repositoryId);
    let parsed: SarifParseResult | null;
    try {
      parsed = this.parsers.sarif(body);
    } catch (error) {
      if (error instanceof ImportRefusal) throw new HttpRefusal(error.status, error.message);
      throw error;
    }
    const sha256 = sha256Hex(body);
    // Let go of the upload: a suspended async function keeps its parameters alive until it
    // returns, and the route handed the body over rather than keeping it on the request.
    body = RELEASED;
    const { resultsCount } = parsed;
    const declared = new Set(source.toolList.map((t) => t.toLowerCase()));
    const undeclared = [...new Set(parsed.runs.map((r) => r.toolName).filter((name) => !declared.has(name.toLowerCase())))];
    if (undeclared.length) {
      const reason = `Source "${source.slug}" does not declare tool ${undeclared.map((t) => `"${t}"`).join(', ')}; it declares ${source.toolList.join(', ')}.`;
      await this.access.audit(ctx, 'sarif', reason, principal, repositoryId);
      throw new HttpRefusal(403, reason);
    }
    const id = await this.ids.next('sarif_import');
    const tools = parsed.runs.map((r) => toolLabel(r));
    const toolKeys = [...new Set(parsed.runs.map((r) => importToolKey(source.slug, r.toolName)))];
    // Several runs of one tool form one report of that tool (a report must not be split).
    const toolVersion = parsed.runs.map((r) => r.toolVersion).find((v) => v) ?? null;
    const provenance: Provenance = { origin: 'import', source: source.slug, toolName: parsed.runs.map((r) => r.toolName).join(', '), toolVersion, recordId: id };
    let findings: Finding[] | null = findingsOf(parsed.runs, source.slug, repositoryId);
    parsed = null; // its results were copied into the findings
    const ingesting = this.backlog.ingest(ctx, { targetKind: 'repository', targetId: repositoryId, toolKeys }, findings, provenance, (o) => ({
      stream: streams.sarifImport(id), expectedRevision: 'no_stream',
      events: [{
        type: 'SarifImportAccepted',
        data: {
          id, repositoryId, sourceSlug: source.slug, accountId: principal.accountId, apiKeyId: principal.keyId, resultsCount,
          createdCount: o.created, resolvedCount: o.resolved, reopenedCount: o.reopened, tools, sha256,
        },
      }],
    }));
    // ingest has taken what it needs before its first await; the backlog lets go of the findings
    // once they are committed, so nothing of the report stays while the issues are projected.
    findings = null;
    const outcome = await ingesting;
    return { id, resultsCount, createdCount: outcome.created, resolvedCount: outcome.resolved, reopenedCount: outcome.reopened, tools, sha256 };
  }
}

/** Stands in for an upload already let go of. */
const RELEASED = Buffer.alloc(0);

/**
 * The rule id doubles as the issue's identifier (what the KEV and EPSS feeds join on), whose column
 * is narrower than the rule's: a longer rule id, never a CVE, leaves the identifier empty (issue #17).
 */
function identifierOf(ruleId: string): string | null {
  return characters(ruleId) <= width('issues.identifier') ? ruleId : null;
}

/** Each run's findings as backlog findings of that run's tool scope, `import:<slug>/<tool>`. */
function findingsOf(runs: readonly SarifRun[], slug: string, repositoryId: number): Finding[] {
  const findings: Finding[] = [];
  for (const run of runs) {
    const toolKey = importToolKey(slug, run.toolName);
    for (const f of run.findings) {
      findings.push({
        targetKind: 'repository', targetId: repositoryId, toolKey, ruleId: f.ruleId, path: f.path, type: 'imported', severity: f.severity,
        line: f.line, title: f.message || f.ruleId, identifier: identifierOf(f.ruleId), packageName: null, packageVersion: null, fixable: null,
        toolName: run.toolName, toolVersion: run.toolVersion,
        // Only when the rule names some: an event of a finding without any stays as it was.
        ...(f.owaspCategories ? { owaspCategories: f.owaspCategories } : {}),
      });
    }
  }
  return findings;
}
